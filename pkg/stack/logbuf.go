package stack

import (
	"bytes"
	"io"
	"sync"
)

// maxLogBytes bounds the log kept per process; older output is dropped
// first, so a long load test cannot exhaust memory.
const maxLogBytes = 8 << 20

// logBuffer collects a process's output. Positions are absolute byte
// offsets since the start, so a caller can ask for what was written after a
// mark even when older output has been dropped.
type logBuffer struct {
	mu      sync.Mutex
	data    []byte
	dropped int64     // bytes discarded from the front
	copyTo  io.Writer // also gets every write (Options.Output); nil for none
}

// Write appends p, dropping the oldest half of the buffer when it is full.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.copyTo != nil {
		_, _ = b.copyTo.Write(p)
	}
	b.data = append(b.data, p...)
	if over := len(b.data) - maxLogBytes; over > 0 {
		cut := max(over, maxLogBytes/2)
		b.data = append(b.data[:0:0], b.data[cut:]...)
		b.dropped += int64(cut)
	}
	return len(p), nil
}

// mark returns the offset of the next byte to be written.
func (b *logBuffer) mark() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dropped + int64(len(b.data))
}

// since returns what was written from offset on (what is still kept of it).
func (b *logBuffer) since(offset int64) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	start := max(offset-b.dropped, 0)
	if start > int64(len(b.data)) {
		return ""
	}
	return string(b.data[start:])
}

// linePrefixer writes each complete line it is given to w behind prefix,
// keeping an unfinished line until its end comes.
type linePrefixer struct {
	w       io.Writer
	prefix  string
	partial []byte
}

// Write passes on every line p completes. Calls come from one logBuffer,
// under its lock.
func (l *linePrefixer) Write(p []byte) (int, error) {
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		if _, err := l.w.Write(append([]byte(l.prefix), l.partial[:i+1]...)); err != nil {
			return len(p), err
		}
		l.partial = l.partial[i+1:]
	}
}

// lockedWriter serializes the writes of several programs to one writer,
// so that their lines do not interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
