package stack

import "sync"

// maxLogBytes bounds the log kept per process; older output is dropped
// first, so a long load test cannot exhaust memory.
const maxLogBytes = 8 << 20

// logBuffer collects a process's output. Positions are absolute byte
// offsets since the start, so a caller can ask for what was written after a
// mark even when older output has been dropped.
type logBuffer struct {
	mu      sync.Mutex
	data    []byte
	dropped int64 // bytes discarded from the front
}

// Write appends p, dropping the oldest half of the buffer when it is full.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
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
