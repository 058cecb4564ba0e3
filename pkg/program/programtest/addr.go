package programtest

import (
	"net"
	"testing"
)

// BusyAddr returns a loopback address that a listener holds until the test
// ends: a port another program has taken.
func BusyAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return ln.Addr().String()
}

// ClosedAddr returns a loopback address nothing listens on, a port freed
// a moment ago: a dependency that is down. Another process could take the
// port in the meantime; the kernel hands freed ports out again last.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}
