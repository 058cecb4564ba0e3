// Command gateway-bench measures the gateway's overhead on loopback with
// vegeta and writes the table to a Markdown file. It only ever targets the
// servers it starts itself, so it cannot be pointed at a deployed environment.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/municipal-apis/platform/gateway/internal/bench"
	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/pkg/program"
)

func main() { program.Main("gateway-bench", realMain) }

// realMain parses the flags, runs the benchmark and writes the report.
func realMain(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("gateway-bench", flag.ContinueOnError)
	cfg := bench.Config{}
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "length of each measured phase")
	fs.DurationVar(&cfg.Warmup, "warmup", 2*time.Second, "unmeasured load before each target")
	fs.IntVar(&cfg.Workers, "workers", 16, "concurrent connections of the throughput phase")
	fs.IntVar(&cfg.Rate, "rate", 500, "requests per second of the latency phase")
	fs.StringVar(&cfg.RedisURL, "redis", "redis://127.0.0.1:6379/0", "Redis of the rate limits")
	fs.Float64Var(&cfg.MaxLoad, "max-load", float64(runtime.NumCPU())/2, "refuse to run above this 1-minute load average")
	out := fs.String("out", "gateway/BENCHMARKS.md", "Markdown file to write")
	accuracy := fs.String("accuracy", "", "instead, measure how exactly two gateways sharing one Redis hold these client limits (e.g. 5-M,600-M,100000-M) and print the table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *accuracy != "" {
		return measureAccuracy(ctx, cfg, *accuracy)
	}
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	kept := keptNotes(*out)
	f, err := os.Create(*out)
	if err != nil {
		return fmt.Errorf("create %s: %w", *out, err)
	}
	command := "go run ./gateway/cmd/gateway-bench " + strings.Join(args, " ")
	if err := rep.WriteMarkdown(f, strings.TrimSpace(command)); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", *out, err)
	}
	if _, err := f.WriteString(kept); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", *out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	return rep.WriteMarkdown(os.Stdout, strings.TrimSpace(command))
}

// measureAccuracy prints the accuracy table of the comma-separated rates.
func measureAccuracy(ctx context.Context, cfg bench.Config, list string) error {
	var rates []ratelimit.Rate
	for r := range strings.SplitSeq(list, ",") {
		rate, err := ratelimit.ParseRate(r)
		if err != nil {
			return err
		}
		rates = append(rates, rate)
	}
	as, err := bench.MeasureAccuracy(ctx, cfg.RedisURL, rates, cfg.Workers)
	if werr := bench.WriteAccuracy(os.Stdout, as); werr != nil {
		return werr
	}
	return err
}

// notesMarker starts the part of the report that engineers write by hand
// (measurements of other tools, such as the peer comparison and the limit
// accuracy); a new run keeps it below its own table.
const notesMarker = "<!-- notes below are kept by gateway-bench -->"

// keptNotes returns the hand-written part of the report at path, marker
// included, or nothing.
func keptNotes(path string) string {
	old, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if i := strings.Index(string(old), notesMarker); i >= 0 {
		return "\n" + string(old[i:])
	}
	return ""
}
