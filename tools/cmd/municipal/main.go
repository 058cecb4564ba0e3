// Command municipal manages the search catalog and the jobs and courses of
// the municipal services API from the command line; see tools/README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/municipal-apis/platform/tools/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	stop()
	os.Exit(code)
}
