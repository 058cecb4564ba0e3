package server

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// LogBuffer is a log destination that gathers lines in memory and writes
// them to the underlying writer when its buffer fills and every interval,
// so a busy program makes one write call per batch of lines instead of one
// per access-log line. A line that comes after an interval with none (the
// first line of the program, a request on an idle gateway) is written at
// once, so a quiet program's log is as prompt as an unbuffered one. slog's
// handlers write each record in one Write call, and the access-log lines
// NewLogger's JSON logger writes by hand are encoded under the buffer's
// lock, so lines are never split or mixed. What was logged in the last interval is lost if the process is
// killed; Close writes the rest on a normal exit.
type LogBuffer struct {
	mu sync.Mutex
	w  *bufio.Writer
	// idle is set by a tick that found nothing written since the one
	// before; the next Write then flushes at once.
	idle    bool
	written bool
	stop    chan struct{}
	done    chan struct{}
}

// NewLogBuffer buffers writes to w, flushing them every interval.
func NewLogBuffer(w io.Writer, interval time.Duration) *LogBuffer {
	b := &LogBuffer{w: bufio.NewWriterSize(w, 64<<10), idle: true, stop: make(chan struct{}), done: make(chan struct{})}
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
			}
		}
	}()
	return b
}

// tick flushes, and marks the buffer idle when nothing was written since
// the last tick.
func (b *LogBuffer) tick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.w.Flush()
	b.idle, b.written = !b.written, false
}

// Write implements io.Writer.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.write(p)
}

// writeLine writes the line l appends, encoded straight into the buffer's
// free space (copied once more only when it does not fit there).
func (b *LogBuffer) writeLine(l *requestLine) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, err := b.write(l.appendTo(b.w.AvailableBuffer()))
	return err
}

// write buffers p, at once written through after an idle interval; the
// caller holds mu.
func (b *LogBuffer) write(p []byte) (int, error) {
	n, err := b.w.Write(p)
	b.written = true
	if b.idle && err == nil {
		b.idle = false
		err = b.w.Flush()
	}
	return n, err
}

// Flush writes what is buffered.
func (b *LogBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

// Close stops the periodic flush and writes what is left.
func (b *LogBuffer) Close() error {
	close(b.stop)
	<-b.done
	return b.Flush()
}
