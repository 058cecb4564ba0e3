// Command searchload measures public search under concurrency through the
// gateway on a stack of its own, for each catalog (realistic, stress) and
// mode (keyword, semantic, hybrid), and prints req/s, p50, p99 and errors.
// Run it from the repository root; -bin runs programs built already, so two
// builds can be measured alternately.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/tools/internal/searchload"
)

func main() {
	program.Main("searchload", func(ctx context.Context, args []string) error { return realMain(ctx, args, os.Stdout, os.Stderr) })
}

func realMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("searchload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := searchload.Options{Log: stderr}
	catalogs := fs.String("catalogs", strings.Join(searchload.Catalogs, ","), "catalogs to measure, comma-separated")
	modes := fs.String("modes", strings.Join(searchload.Modes, ","), "modes to measure, comma-separated")
	fs.StringVar(&o.Binaries, "bin", "", "directory of the programs built already (default: build the working tree)")
	fs.IntVar(&o.Size, "size", searchload.DefaultSize, "published Servicos of each catalog")
	fs.IntVar(&o.Clients, "clients", searchload.DefaultClients, "clients sending searches back to back")
	fs.DurationVar(&o.Warmup, "warmup", searchload.DefaultWarmup, "unmeasured time before each mode")
	fs.DurationVar(&o.Duration, "duration", searchload.DefaultDuration, "measured time of each mode")
	fs.StringVar(&o.Database, "search-db", "", "search-admin database URL to create and keep (one catalog only)")
	asJSON := fs.Bool("json", false, "print JSON instead of a Markdown table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	o.Catalogs, o.Modes = strings.Split(*catalogs, ","), strings.Split(*modes, ",")
	res, err := searchload.Run(ctx, o)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if e := enc.Encode(res); e != nil && err == nil {
			err = e
		}
	} else {
		fmt.Fprint(stdout, searchload.Table(res))
	}
	return err
}
