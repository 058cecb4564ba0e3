// Command probe is the health check copied into every image: it GETs one URL
// and exits 0 when the answer is 2xx, 1 otherwise. Distroless images have no
// shell or curl, so docker-compose healthchecks run it as
// ["CMD", "/usr/local/bin/probe", "http://127.0.0.1:9090/readyz"] (the admin port).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/municipal-apis/platform/deploy/internal/probe"
	"github.com/municipal-apis/platform/pkg/program"
)

func main() {
	program.MainCode(func(ctx context.Context, args []string) int {
		if realMain(ctx, args, os.Stderr) != nil {
			return 1
		}
		return 0
	})
}

// realMain parses the arguments, runs one check and reports a failure on stderr.
func realMain(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: probe [-timeout 3s] URL")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *timeout <= 0 {
		fs.Usage()
		return errors.New("probe: want one URL and a positive timeout")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	client := &http.Client{
		Timeout: *timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	if err := probe.Check(ctx, client, fs.Arg(0)); err != nil {
		fmt.Fprintln(stderr, "probe:", err)
		return err
	}
	return nil
}
