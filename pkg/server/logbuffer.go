package server

import (
	"io"
	"sync"
	"time"
)

// LogBuffer is a log destination that gathers lines in memory and writes
// them to the underlying writer when a batch fills and every interval, so a
// busy program makes one write call per batch of lines instead of one per
// access-log line. A line that comes after an interval with none (the first
// line of the program, a request on an idle gateway) is written at once, so
// a quiet program's log is as prompt as an unbuffered one. slog's handlers
// write each record in one Write call, and the access-log lines NewLogger's
// JSON logger writes by hand are encoded under the buffer's lock, so lines
// are never split or mixed. What was logged in the last interval is lost if
// the process is killed; Close writes the rest on a normal exit.
//
// A full batch is written by the buffer's own goroutine, outside the lock
// lines are added under: a request that logs while the batch before it is
// being written (to a pipe a slow collector drains, to a disk, or by a
// thread the kernel has descheduled) does not wait for that write. Only a
// backlog of logBacklog bytes makes a line's writer wait, so memory stays
// bounded when the destination cannot keep up.
type LogBuffer struct {
	mu  sync.Mutex // guards buf, idle and written
	buf []byte     // the lines not yet handed to w
	// idle is set by a tick that found nothing written since the one
	// before; the next line is then written at once.
	idle    bool
	written bool

	wmu   sync.Mutex // held while a batch is taken and written: batches go out in order
	w     io.Writer
	spare []byte // the batch being written; guarded by wmu

	full chan struct{} // a batch is full
	stop chan struct{}
	done chan struct{}
}

const (
	// logBatch is the size of a batch the buffer's goroutine writes.
	logBatch = 64 << 10
	// logBacklog is what the buffer holds before a line's writer writes
	// the backlog itself.
	logBacklog = 4 << 20
)

// NewLogBuffer buffers writes to w, flushing them every interval.
func NewLogBuffer(w io.Writer, interval time.Duration) *LogBuffer {
	b := &LogBuffer{w: w, buf: make([]byte, 0, logBatch), spare: make([]byte, 0, logBatch), idle: true,
		full: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				b.tick()
			case <-b.full:
				// Lines added after the signal was taken may have sent
				// another for the batch just written.
				b.mu.Lock()
				n := len(b.buf)
				b.mu.Unlock()
				if n >= logBatch {
					_ = b.flush()
				}
			}
		}
	}()
	return b
}

// tick flushes, and marks the buffer idle when nothing was written since
// the last tick.
func (b *LogBuffer) tick() {
	b.mu.Lock()
	b.idle, b.written = !b.written, false
	b.mu.Unlock()
	_ = b.flush()
}

// Write implements io.Writer.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	b.buf = append(b.buf, p...)
	return len(p), b.added()
}

// writeLine writes the line l appends, encoded straight into the buffer.
func (b *LogBuffer) writeLine(l *requestLine) error {
	b.mu.Lock()
	b.buf = l.appendTo(b.buf)
	return b.added()
}

// added follows a line added under mu, which it releases: the line is
// written at once after an idle interval, the batch handed to the
// buffer's goroutine when full, and the backlog written here when the
// destination has fallen that far behind.
func (b *LogBuffer) added() error {
	b.written = true
	idle, n := b.idle, len(b.buf)
	b.idle = false
	b.mu.Unlock()
	switch {
	case idle || n >= logBacklog:
		return b.flush()
	case n >= logBatch:
		select {
		case b.full <- struct{}{}:
		default: // already signalled
		}
	}
	return nil
}

// flush writes what is buffered, after any batch being written.
func (b *LogBuffer) flush() error {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	b.mu.Lock()
	b.buf, b.spare = b.spare[:0], b.buf
	b.mu.Unlock()
	if len(b.spare) == 0 {
		return nil
	}
	_, err := b.w.Write(b.spare)
	if cap(b.spare) > 2*logBatch {
		b.spare = make([]byte, 0, logBatch) // a backlog's buffer is not kept
	}
	return err
}

// Flush writes what is buffered.
func (b *LogBuffer) Flush() error { return b.flush() }

// Close stops the periodic flush and writes what is left.
func (b *LogBuffer) Close() error {
	close(b.stop)
	<-b.done
	return b.flush()
}
