//go:build unix

package proxy

import (
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/polltest"
)

// TestThePeekSeesWhatWaitsAndAllocatesNothing: the pool's look at a
// connection, made before every reuse, tells an idle socket from one with
// a byte waiting or closed by its peer, takes nothing from it, and
// allocates nothing.
func TestThePeekSeesWhatWaitsAndAllocatesNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := conn.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	p := newPeeker(raw)
	if !p.idle() {
		t.Fatal("a quiet connection is not idle")
	}
	if n := testing.AllocsPerRun(100, func() { p.idle() }); n != 0 {
		t.Errorf("a look allocates %.0f times", n)
	}
	if _, err := peer.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 2*time.Second, "the peek sees a byte waiting", func() bool { return !p.idle() })
	buf := make([]byte, 4)
	_ = conn.SetReadDeadline(time.Now().Add(time.Second))
	if n, err := conn.Read(buf); n != 1 || buf[0] != 'x' {
		t.Fatalf("the byte looked at was taken: read %q (%v)", buf[:n], err)
	}
	if !p.idle() {
		t.Fatal("a connection read empty is not idle")
	}
	_ = peer.Close()
	polltest.Until(t, 2*time.Second, "the peek sees the peer's close", func() bool { return !p.idle() })
}
