package bench

import (
	"fmt"
	"io"
	"runtime"
	"time"
)

// Targets the issue sets for the gateway.
const (
	targetThroughputRatio = 0.8
	targetAddedP50        = 500 * time.Microsecond
)

// WriteMarkdown writes the report as the BENCHMARKS.md document, naming the
// command that produced it.
func (r Report) WriteMarkdown(w io.Writer, command string) error {
	c := r.Config
	_, err := fmt.Fprintf(w, `# Gateway benchmark

Produced by:

    %s

Run %s on %d CPUs (%s, %s), 1-minute load average %.2f at the start.
Everything runs on loopback in one process except Redis and the development
identity provider (a devidp process started through pkg/stack): the load
generator (vegeta), a trivial upstream answering a small JSON body, two
gateways in front of the same upstream, and a bare
httputil.ReverseProxy (no token check, no limits, no logging or metrics) as
a control: the share of direct throughput that any Go reverse proxy keeps
when it shares these cores with the load generator and the upstream. Every
request carries a real RS256 access token. Limits on the measured gateway are
set far above the load, so each request is counted in Redis (client and
department, one round trip) and none is refused.

Each target gets %s of unmeasured warm-up, then %s as fast as %d connections
go (throughput), then %s at a fixed %d requests/s (latency, so that queueing
at full speed does not hide the per-request cost).

| target | requests/s | × direct | p50 | p99 | added p50 |
|---|---:|---:|---:|---:|---:|
%s%s%s%s
Targets: throughput through the gateway at least %.1f× direct: **%s**; added p50 under %s: **%s**.
`,
		command, r.Started.UTC().Format(time.RFC3339), r.CPUs, runtime.Version(), runtime.GOARCH, r.Load,
		c.Warmup, c.Duration, c.Workers, c.Duration, c.Rate,
		r.row(r.Direct), r.row(r.Limited), r.row(r.Open), r.row(r.Bare),
		targetThroughputRatio, verdict(r.Limited.Throughput >= targetThroughputRatio*r.Direct.Throughput),
		targetAddedP50, verdict(r.Limited.P50-r.Direct.P50 < targetAddedP50))
	return err
}

// row is one line of the table.
func (r Report) row(x Result) string {
	return fmt.Sprintf("| %s | %.0f | %.2f | %s | %s | %s |\n",
		x.Name, x.Throughput, x.Throughput/r.Direct.Throughput, ms(x.P50), ms(x.P99), ms(x.P50-r.Direct.P50))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}
