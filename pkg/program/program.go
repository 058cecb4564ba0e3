// Package program runs a command's realMain with the platform's conventions:
// a context cancelled by SIGINT or SIGTERM, an error printed as "name: err"
// on standard error, and exit status 1 when it fails.
package program

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
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
//
// Once the first signal has cancelled the context, a second Ctrl-C
// (SIGINT) is no longer caught and ends the program at once, for when what
// the first one lets finish (a server's drain, an import's requests in
// flight) takes longer than the person at the terminal will wait. SIGTERM
// stays caught: process managers may send it more than once, and a drain
// must survive that.
func MainCode(run func(ctx context.Context, args []string) int) {
	ctx, cancel := context.WithCancelCause(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-signals
		signal.Reset(os.Interrupt) // before the cancellation anyone can see
		cancel(errors.New(s.String() + " signal received"))
	}()
	code := run(ctx, os.Args[1:])
	signal.Stop(signals)
	cancel(nil)
	os.Exit(code)
}

// Run calls run and reports its error on stderr; it returns the exit status.
// A Usage is no failure: it is printed after "usage: name" and the status is 0.
func Run(ctx context.Context, name string, args []string, stderr io.Writer, run RunFunc) int {
	err := run(ctx, args)
	var usage Usage
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "usage: %s%s\n", name, string(usage))
		return 0
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return 1
}

// Usage is a command's answer to a request for help: the text after
// "usage: name" that Run prints.
type Usage string

func (u Usage) Error() string { return "usage:" + string(u) }

// IsHelp reports whether args ask for help: -h, -help, --help or help alone.
func IsHelp(args []string) bool {
	return len(args) == 1 && slices.Contains([]string{"-h", "-help", "--help", "help"}, args[0])
}

// EnvOnly is the RunFunc of a command configured by its environment alone
// (the gateway, devidp): help answers where the settings are documented,
// and any other argument is refused, so a habit of -h or a stray argument
// never starts a server on the default ports.
func EnvOnly(doc string, run func(context.Context) error) RunFunc {
	return func(ctx context.Context, args []string) error {
		switch {
		case IsHelp(args):
			return Usage("\n\nIt takes no arguments: every setting is an environment variable (" + doc + ").")
		case len(args) > 0:
			return fmt.Errorf("takes no arguments, every setting is an environment variable (%s); got %q", doc, args)
		}
		return run(ctx)
	}
}
