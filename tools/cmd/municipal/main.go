// Command municipal manages the search catalog and the jobs and courses of
// the municipal services API from the command line; see tools/README.md.
package main

import (
	"context"
	"os"

	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/tools/internal/cli"
)

func main() {
	program.MainCode(func(ctx context.Context, args []string) int {
		return cli.Main(ctx, args, cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	})
}
