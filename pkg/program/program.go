// Package program runs a command's realMain with the platform's conventions:
// a context cancelled by SIGINT or SIGTERM, an error printed as "name: err"
// on standard error, and exit status 1 when it fails.
package program

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// RunFunc is a command's realMain: it returns when ctx is cancelled or its
// work is done.
type RunFunc func(ctx context.Context, args []string) error

// Main runs run with the process's arguments and a context cancelled by
// SIGINT or SIGTERM, then exits with its status. It does not return.
func Main(name string, run RunFunc) {
	MainCode(func(ctx context.Context, args []string) int {
		return Run(ctx, name, args, os.Stderr, run)
	})
}

// MainCode is Main for a command that picks its own exit status, such as 2
// for a usage error. It does not return.
func MainCode(run func(ctx context.Context, args []string) int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// Run calls run and reports its error on stderr; it returns the exit status.
func Run(ctx context.Context, name string, args []string, stderr io.Writer, run RunFunc) int {
	if err := run(ctx, args); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}
