// Package cli implements the municipal command: a command line for both
// areas of the municipal services API, built on pkg/client.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Env is what the command reads from and writes to: standard streams and
// the process environment.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// Main runs the command line args, reports any error on env.Stderr and
// returns the process exit code: 0 on success, 2 for a usage error, 1 otherwise.
func Main(ctx context.Context, args []string, env Env) int {
	err := newRoot(env).ExecuteContext(ctx, args)
	if err == nil {
		return 0
	}
	writeError(env.Stderr, err)
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// usageError is a command line that cannot be run as written.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usagef builds a usageError.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}
