// Package logtest gives tests a log destination that a running program may
// write from many goroutines while the test reads it.
package logtest

import (
	"strings"
	"sync"
)

// Buffer gathers what is written to it; its zero value is ready to use.
type Buffer struct {
	mu sync.Mutex
	sb strings.Builder
}

// Write appends p; it is safe to call from several goroutines.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.String()
}
