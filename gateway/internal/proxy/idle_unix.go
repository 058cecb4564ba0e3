//go:build unix

package proxy

import (
	"errors"
	"syscall"
)

// idle reports whether the connection of raw has nothing to read and is not
// closed by its peer: a peek that does not wait finds no byte and no end.
func idle(raw syscall.RawConn) bool {
	var buf [1]byte
	var err error
	// Control, not Read: the peek does not wait, so it needs neither the
	// read lock nor the poller.
	if cerr := raw.Control(func(fd uintptr) {
		for {
			_, _, err = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			if !errors.Is(err, syscall.EINTR) {
				return
			}
		}
	}); cerr != nil {
		return false
	}
	return errors.Is(err, syscall.EAGAIN) // else a byte (n 1), the end (n 0) or a reset
}
