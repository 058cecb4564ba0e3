package stack

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/client"
)

// startTimeout bounds building the programs and starting a stack in tests.
const startTimeout = 3 * time.Minute

// skipShort skips tb under go test -short (make test-short): building every
// program and running them as processes is what the fast tier leaves out.
// It is about speed only; without -short a stack that cannot start fails tb.
func skipShort(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("stack: end-to-end and load tests start every program as a process; skipped under -short")
	}
}

// StartT starts a stack for tb alone and stops it when tb ends, printing
// the programs' logs when tb failed; it skips tb under -short. It fails tb (never skips) when the
// stack cannot start, Postgres or Redis being down included.
func StartT(tb testing.TB, opts Options) *Stack {
	tb.Helper()
	skipShort(tb)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	s, err := Start(ctx, opts)
	if err != nil {
		tb.Fatalf("stack: %v", err)
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("logs of the stack:\n%s", s.Logs())
		}
		if err := s.Close(); err != nil {
			tb.Errorf("stack: close: %v", err)
		}
	})
	return s
}

// Shared is one stack shared by the tests of a binary: started by the
// first Get, stopped by Main after every test has run.
type Shared struct {
	opts  Options
	once  sync.Once
	stack *Stack
	err   error
}

// NewShared describes a shared stack started with opts on first use.
func NewShared(opts Options) *Shared { return &Shared{opts: opts} }

// Get returns the shared stack, starting it on the first call; it fails tb
// when the stack could not start, and skips it under -short. When tb fails, it logs what the programs
// wrote while tb ran (with the output of tests running in parallel).
func (sh *Shared) Get(tb testing.TB) *Stack {
	tb.Helper()
	skipShort(tb)
	sh.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		sh.stack, sh.err = Start(ctx, sh.opts)
	})
	if sh.err != nil {
		tb.Fatalf("stack: %v", sh.err)
	}
	mark := sh.stack.Mark()
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("logs of the shared stack during the test:\n%s", sh.stack.LogsSince(mark))
		}
	})
	return sh.stack
}

// close stops the shared stack if it was started.
func (sh *Shared) close() error {
	if sh.stack == nil {
		return nil
	}
	return sh.stack.Close()
}

// Main runs the tests of m, then stops the shared stacks and removes the
// binaries; use it as the whole of TestMain: os.Exit(stack.Main(m, shared)).
// A shared stack that fails to stop cleanly (a program crashed or hung)
// fails the run.
func Main(m *testing.M, shared ...*Shared) int {
	code := m.Run()
	for _, sh := range shared {
		if err := sh.close(); err != nil {
			fmt.Fprintf(os.Stderr, "stack: close the shared stack: %v\nend of its logs:\n%s\n", err, tail(sh.stack.Logs(), maxReportedLog))
			code = max(code, 1)
		}
	}
	if err := RemoveBinaries(); err != nil {
		fmt.Fprintf(os.Stderr, "stack: remove the binaries: %v\n", err)
	}
	return code
}

// maxReportedLog bounds the log Main prints after a shared stack failed.
const maxReportedLog = 64 << 10

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// MustClient returns a pkg/client Client of the stack for the realm client
// clientID, after adjust (if any) changed its configuration.
func (s *Stack) MustClient(tb testing.TB, clientID string, adjust ...func(*client.Config)) *client.Client {
	tb.Helper()
	cfg, err := s.ClientConfig(clientID)
	if err != nil {
		tb.Fatalf("stack: %v", err)
	}
	for _, a := range adjust {
		a(&cfg)
	}
	c, err := client.New(cfg)
	if err != nil {
		tb.Fatalf("stack: client of %s: %v", clientID, err)
	}
	return c
}
