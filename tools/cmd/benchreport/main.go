// Command benchreport runs the whole benchmark set of the repository (the
// go test benchmarks of every module, the gateway's vegeta comparison and a
// loadgen run against a stack on loopback) and writes docs/benchmarks.md
// with a PNG latency plot. Run it from the repository root: make bench.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/tools/internal/benchreport"
	"github.com/municipal-apis/platform/tools/internal/searchload"
)

func main() {
	program.Main("benchreport", func(ctx context.Context, args []string) error { return realMain(ctx, args, os.Stderr) })
}

// options are the flags of benchreport.
type options struct {
	out, plot string
	gateway   benchreport.GatewayBench
	peers     benchreport.PeerBench
	load      benchreport.LoadRun
	search    searchload.Options
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("benchreport", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.out, "out", "docs/benchmarks.md", "Markdown report to write")
	fs.StringVar(&o.plot, "plot", "docs/benchmarks-latency.png", "PNG latency plot to write")
	fs.StringVar(&o.gateway.Duration, "gateway-duration", "10s", "length of each measured phase of gateway-bench")
	fs.StringVar(&o.gateway.Warmup, "gateway-warmup", "2s", "warm-up of gateway-bench before each target")
	fs.Float64Var(&o.gateway.MaxLoad, "gateway-max-load", float64(4*runtime.NumCPU()), "load average above which gateway-bench refuses to run")
	fs.IntVar(&o.peers.Rounds, "peers-rounds", 3, "rounds of scripts/gateway-peers.sh")
	fs.StringVar(&o.peers.Duration, "peers-duration", "8s", "wrk run of each target and round of scripts/gateway-peers.sh")
	fs.IntVar(&o.load.Rate, "load-rate", 50, "requests per second of the loadgen run")
	fs.DurationVar(&o.load.Duration, "load-duration", 30*time.Second, "length of the loadgen run")
	fs.IntVar(&o.search.Clients, "search-clients", searchload.DefaultClients, "clients of the search-under-load run")
	fs.DurationVar(&o.search.Duration, "search-duration", searchload.DefaultDuration, "measured time of each catalog and mode of the search-under-load run")
	o.search.Warmup = searchload.DefaultWarmup
	return o, fs.Parse(args)
}

// realMain runs every part, writes the report even when a part failed, and
// then returns an error naming the failure.
func realMain(ctx context.Context, args []string, log io.Writer) error {
	o, err := parseFlags(args, log)
	if err != nil {
		return err
	}
	if _, err := os.Stat("go.work"); err != nil {
		return fmt.Errorf("run from the repository root (no go.work here): %w", err)
	}
	rep := run(ctx, o, log)
	if err := write(o, rep); err != nil {
		return err
	}
	fmt.Fprintf(log, "benchreport: wrote %s and %s in %v\n", o.out, o.plot, rep.Elapsed.Round(time.Second))
	if rep.Failed() {
		return fmt.Errorf("some benchmarks failed; see %s", o.out)
	}
	return nil
}

// run measures every part in turn, logging progress.
func run(ctx context.Context, o options, log io.Writer) *benchreport.Report {
	rep := &benchreport.Report{Started: time.Now(), Machine: benchreport.ReadMachine()}
	fmt.Fprintf(log, "benchreport: %d CPUs, load average %s\n", rep.Machine.CPUs, rep.Machine.LoadStart)
	for _, s := range benchreport.DefaultSuites {
		fmt.Fprintf(log, "benchreport: %s\n", s.Command())
		benches, err := benchreport.RunSuite(ctx, ".", s, log)
		rep.Suites = append(rep.Suites, benchreport.SuiteResult{Suite: s, Benches: benches, Err: err})
	}
	rep.GatewayCommand = o.gateway.Command("<temporary file>")
	fmt.Fprintf(log, "benchreport: %s\n", rep.GatewayCommand)
	rep.Gateway, rep.GatewayErr = o.gateway.Run(ctx, ".", log)
	rep.PeersCommand = o.peers.Command()
	fmt.Fprintf(log, "benchreport: %s\n", rep.PeersCommand)
	rep.Peers, rep.PeersErr = o.peers.Run(ctx, ".", log)
	rep.LoadCommand = o.load.Command()
	fmt.Fprintf(log, "benchreport: loadgen, %d req/s for %v against a new stack\n", o.load.Rate, o.load.Duration)
	rep.Load, rep.LoadErr = o.load.Run(ctx)
	rep.SearchLoadCommand = fmt.Sprintf("go run ./tools/cmd/searchload -clients %d -duration %v", o.search.Clients, o.search.Duration)
	fmt.Fprintf(log, "benchreport: %s\n", rep.SearchLoadCommand)
	o.search.Log = log
	rep.SearchLoad, rep.SearchLoadErr = searchload.Run(ctx, o.search)
	rep.Machine.LoadEnd = benchreport.LoadAverage()
	rep.Elapsed = time.Since(rep.Started)
	return rep
}

// write saves the plot (when the load ran) and the report.
func write(o options, rep *benchreport.Report) error {
	if rep.Load != nil {
		if err := benchreport.WriteLatencyPlot(o.plot, rep.Load); err != nil {
			return err
		}
		rel, err := filepath.Rel(filepath.Dir(o.out), o.plot)
		if err != nil {
			return fmt.Errorf("place the plot: %w", err)
		}
		rep.Plot = filepath.ToSlash(rel)
	}
	f, err := os.Create(o.out)
	if err != nil {
		return fmt.Errorf("create the report: %w", err)
	}
	if err := rep.WriteMarkdown(f); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	return nil
}
