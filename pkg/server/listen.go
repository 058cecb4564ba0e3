package server

import (
	"errors"
	"fmt"
	"net"
)

// Listen opens the TCP listener of a program's server on addr; port 0
// picks a free port, which the listener's Addr reports.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}

// CloseListener closes ln unless it is nil or already closed, as it is
// once Serve has shut the server down.
func CloseListener(ln net.Listener) error {
	if ln == nil {
		return nil
	}
	if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("close listener: %w", err)
	}
	return nil
}
