// Command loadgen sends mixed, realistic traffic through the gateway at a
// fixed rate for a fixed time and prints latency percentiles and errors by
// status, overall and per operation. It refuses production base URLs and,
// unless --allow-remote-staging is given for staging, anything but loopback.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/tools/internal/load"
)

func main() {
	program.MainCode(func(ctx context.Context, args []string) int {
		return realMain(ctx, args, os.Getenv, os.Stdout, os.Stderr)
	})
}

// realMain runs loadgen with args and the environment getenv reads, and
// returns the exit status: 0 success, 1 failure, 2 usage error.
func realMain(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, asJSON, err := parseArgs(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	rep, err := load.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 1
	}
	if err := write(stdout, rep, asJSON); err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 1
	}
	return 0
}

// write prints the report as text tables or as indented JSON.
func write(w io.Writer, rep *load.Report, asJSON bool) error {
	if !asJSON {
		return rep.WriteText(w)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	return nil
}
