package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

// startTimeout bounds how long a new redis-server may take to answer PING.
const startTimeout = 10 * time.Second

// startAttempts is how many spare ports Start tries before giving up.
const startAttempts = 3

// Server is a throwaway redis-server process owned by one test: no
// persistence, loopback only, killed when the test ends.
type Server struct {
	port string
	dir  string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan error
}

// Start runs redis-server on a spare loopback port and stops it when tb
// ends. It fails tb when the binary is missing or the server does not come up.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{dir: tb.TempDir()}
	var err error
	for range startAttempts {
		if s.port, err = sparePort(); err != nil {
			break
		}
		if err = s.launch(); err == nil {
			tb.Cleanup(s.kill)
			return s
		}
	}
	tb.Fatalf("redistest: start redis-server: %v", err)
	return nil
}

// Addr returns host:port of the server.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", s.port) }

// URL returns the redis:// URL of the server's database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Stop kills the server abruptly, as a crash would; its data is lost.
func (s *Server) Stop(tb testing.TB) {
	tb.Helper()
	s.kill()
	if err := Ping(context.Background(), s.Addr()); err == nil {
		tb.Fatalf("redistest: redis at %s still answers after stop", s.Addr())
	}
}

// Restart starts a fresh, empty server on the same port after Stop.
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	if err := s.launch(); err != nil {
		tb.Fatalf("redistest: restart redis-server on %s: %v", s.Addr(), err)
	}
}

// launch starts the process and waits until it answers PING.
func (s *Server) launch() error {
	cmd := exec.Command("redis-server",
		"--port", s.port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("exec redis-server: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("redis-server on port %s exited: %w", s.port, err)
		case <-time.After(20 * time.Millisecond):
		}
		if Ping(context.Background(), s.Addr()) == nil {
			s.mu.Lock()
			s.cmd, s.exited = cmd, exited
			s.mu.Unlock()
			return nil
		}
	}
	_ = cmd.Process.Kill()
	return errors.New("redis-server did not answer PING within " + startTimeout.String())
}

// kill stops the running process, if any, and waits until it has exited.
func (s *Server) kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd, s.exited = nil, nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-exited
}

// sparePort asks the kernel for a free loopback port.
func sparePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a spare port: %w", err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), nil
}
