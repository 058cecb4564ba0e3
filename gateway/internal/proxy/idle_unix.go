//go:build unix

package proxy

import (
	"errors"
	"syscall"
)

// peeker looks at a connection's socket without reading from it. Its
// function and the peek's result live with the connection, so that a look
// allocates nothing: a closure over them would be made on every request.
type peeker struct {
	raw  syscall.RawConn
	look func(fd uintptr) // peek, bound once
	err  error
	buf  [1]byte
}

func newPeeker(raw syscall.RawConn) *peeker {
	p := &peeker{raw: raw}
	p.look = p.peek
	return p
}

// idle reports whether the connection has nothing to read and is not
// closed by its peer: a peek that does not wait finds no byte and no end.
func (p *peeker) idle() bool {
	// Control, not Read: the peek does not wait, so it needs neither the
	// read lock nor the poller.
	if err := p.raw.Control(p.look); err != nil {
		return false
	}
	return errors.Is(p.err, syscall.EAGAIN) // else a byte (n 1), the end (n 0) or a reset
}

func (p *peeker) peek(fd uintptr) {
	for {
		_, _, p.err = syscall.Recvfrom(int(fd), p.buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		if !errors.Is(p.err, syscall.EINTR) {
			return
		}
	}
}
