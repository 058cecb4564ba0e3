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
// per access-log line. slog's handlers write each record in one Write
// call, so lines are never split or mixed. What was logged in the last
// interval is lost if the process is killed; Close writes the rest on a
// normal exit.
type LogBuffer struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// NewLogBuffer buffers writes to w, flushing them every interval.
func NewLogBuffer(w io.Writer, interval time.Duration) *LogBuffer {
	b := &LogBuffer{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				_ = b.Flush()
			}
		}
	}()
	return b
}

// Write implements io.Writer.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Write(p)
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
