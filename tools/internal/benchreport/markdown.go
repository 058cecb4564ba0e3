package benchreport

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/municipal-apis/platform/tools/internal/load"
	"github.com/municipal-apis/platform/tools/internal/searchload"
)

// areas are the sections of go test results, in order, with the notes the
// module engineers keep next to their code.
var areas = []struct{ name, details string }{
	{"gateway", "[gateway/BENCHMARKS.md](../gateway/BENCHMARKS.md) and the gateway README's benchmark section"},
	{"jobs", "[services/jobs/BENCHMARKS.md](../services/jobs/BENCHMARKS.md)"},
	{"search-admin", "[services/search-admin/BENCHMARKS.md](../services/search-admin/BENCHMARKS.md)"},
	{"client and tools", "[pkg/client/README.md](../pkg/client/README.md), [pkg/idempotency](../pkg/idempotency) and [tools/README.md](../tools/README.md)"},
}

// WriteMarkdown writes the report.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	r.writeHeader(&b)
	r.writeTargets(&b)
	for _, a := range areas {
		fmt.Fprintf(&b, "## %s\n\n", a.name)
		if a.name == "gateway" {
			r.writeGateway(&b)
		}
		writeSuites(&b, r.suitesOf(a.name))
		if a.name == "search-admin" {
			r.writeSearchLoad(&b)
		}
		fmt.Fprintf(&b, "Details, methods and earlier measurements: %s.\n\n", a.details)
	}
	r.writeLoad(&b)
	r.writeCommands(&b)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	return nil
}

func (r *Report) writeHeader(b *strings.Builder) {
	m := r.Machine
	fmt.Fprintf(b, "# Benchmarks\n\nWritten by `make bench` (`go run ./tools/cmd/benchreport`); do not edit by hand. "+
		"Run %s, %s in all.\n\n", r.Started.UTC().Format(time.RFC3339), r.Elapsed.Round(time.Second))
	fmt.Fprintf(b, "| machine | |\n|---|---|\n| CPUs | %d |\n| CPU | %s |\n| Go | %s (%s) |\n| load average (1, 5, 15 min) at start | %s |\n| load average at end | %s |\n\n",
		m.CPUs, m.CPUModel, m.GoVersion, m.Platform, m.LoadStart, m.LoadEnd)
	b.WriteString("Everything runs on this machine: the load generators, the services, the gateway, Postgres and Redis " +
		"share its cores, and other work may have been running at the same time (see the load average), so " +
		"read the figures as orders of magnitude and compare runs by their ratios.\n\n")
}

func (r *Report) writeTargets(b *strings.Builder) {
	b.WriteString("## Targets\n\n| target | measured | met |\n|---|---|---|\n")
	for _, t := range r.Targets() {
		fmt.Fprintf(b, "| %s | %s | %s |\n", t.Name, t.Measured, yesNo(t.Met))
	}
	fmt.Fprintf(b, "\nThe gateway's targets are its issue's, judged by `gateway-bench`; the mixed-load targets are set here: "+
		"the default mix at the asked rate with no failed request and every operation's p99 under %.0f ms.\n\n", loadMaxP99Millis)
}

func (r *Report) writeGateway(b *strings.Builder) {
	b.WriteString("### Through the gateway and direct, with vegeta (`gateway-bench`)\n\n")
	if r.GatewayErr != nil {
		fmt.Fprintf(b, "Not measured: %s\n\n", oneLine(r.GatewayErr))
	} else {
		b.WriteString(strings.Join(r.Gateway.Table, "\n") + "\n\n")
		if r.Gateway.Targets != "" {
			fmt.Fprintf(b, "Targets: %s\n\n", r.Gateway.Targets)
		}
	}
	r.writePeers(b)
	b.WriteString("### go test benchmarks\n\n")
}

func (r *Report) writePeers(b *strings.Builder) {
	b.WriteString("### Beside nginx and HAProxy, with wrk (`scripts/gateway-peers.sh`)\n\n")
	if r.PeersErr != nil {
		fmt.Fprintf(b, "Not measured: %s\n\n", oneLine(r.PeersErr))
		return
	}
	b.WriteString("The same trivial upstream, bearer token and wrk load (2 threads, 64 connections) through each " +
		"target; median of the rounds, which alternate between targets. `haproxy-jwt-limits` verifies the RS256 " +
		"token on every request and counts it per client and department in stick tables, the work the gateway does. " +
		"`fasthttp-bare` is the gateway's proxy core (fasthttp's server and `HostClient`) with none of its work; " +
		"`fasthttp-headers` is the same core sending upstream the seven headers the gateway adds, and the request " +
		"id it returns, still with none of its work. " +
		"CPU us/req is the CPU time the target's own processes spent per request served (the upstream's, for " +
		"`direct`): wrk and the upstream share the same cores, so it is the steadier figure of the two. " +
		"Upstream CPU us/req is the upstream's behind each target: the headers a proxy adds cost the upstream " +
		"too, and so the throughput of the cores they all share.\n\n")
	b.WriteString(strings.Join(r.Peers.Table, "\n") + "\n\n")
	fmt.Fprintf(b, "Ratios: `%s`", r.Peers.Ratios)
	if r.Peers.Load != "" {
		fmt.Fprintf(b, "; load average at the end %s", r.Peers.Load)
	}
	b.WriteString(".\n\n")
	if len(r.Peers.PacedTable) > 0 {
		fmt.Fprintf(b, "wrk's closed loop sends each target the load it can take, so the p99 column above compares "+
			"targets at different loads. The same load to each, paced as wrk2 paces it (each request due at its "+
			"time and its latency counted from then), half of `haproxy-jwt-limits`' throughput: %s.\n\n", r.Peers.Paced)
		b.WriteString(strings.Join(r.Peers.PacedTable, "\n") + "\n\n")
	}
	for _, g := range r.Peers.Goals {
		fmt.Fprintf(b, "- %s\n", g)
	}
	if len(r.Peers.Goals) > 0 {
		b.WriteString("\n")
	}
}

// writeSuites writes one table of every result of suites, a column per unit.
func writeSuites(b *strings.Builder, suites []SuiteResult) {
	var benches []Bench
	for _, s := range suites {
		if s.Err != nil {
			fmt.Fprintf(b, "`%s` failed:\n\n```\n%s\n```\n\n", s.Suite.Command(), s.Err)
		}
		benches = append(benches, s.Benches...)
	}
	if len(benches) == 0 {
		return
	}
	units := unitsOf(benches)
	fmt.Fprintf(b, "| benchmark | package | runs | %s |\n|---|---|---:|%s\n", strings.Join(columnNames(units), " | "), strings.Repeat("---:|", len(units)))
	for _, bench := range benches {
		cells := make([]string, len(units))
		for _, m := range bench.Metrics {
			cells[indexOf(units, m.Unit)] = formatMetric(m)
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s |\n", bench.Name, shortPackage(bench.Package), bench.Iters, strings.Join(cells, " | "))
	}
	b.WriteString("\n")
}

// writeSearchLoad writes search under concurrency through the gateway,
// beside the serial figures of the go test benchmarks.
func (r *Report) writeSearchLoad(b *strings.Builder) {
	b.WriteString("### Search under concurrency through the gateway (`searchload`)\n\n")
	if r.SearchLoadErr != nil {
		fmt.Fprintf(b, "Not measured: %s\n\n", oneLine(r.SearchLoadErr))
	}
	if len(r.SearchLoad) == 0 {
		return
	}
	first := r.SearchLoad[0]
	fmt.Fprintf(b, "A fresh stack per catalog, %d published Servicos indexed in v3 by a re-index, %d clients sending searches "+
		"(`per_page=10`) back to back through the gateway with a token of the `reader` client, %gs per mode after a warm-up. "+
		"`realistic`: the labeled relevance services with unit numbers and their queries; `stress`: services written from a "+
		"vocabulary of %d words, so each common query word matches most of them, and short common-word queries.\n\n",
		searchload.DefaultSize, first.Clients, first.Seconds, searchload.VocabularySize())
	b.WriteString(searchload.Table(r.SearchLoad) + "\n")
}

func (r *Report) writeLoad(b *strings.Builder) {
	b.WriteString("## Mixed load through the gateway (`loadgen`)\n\n")
	if r.LoadErr != nil {
		fmt.Fprintf(b, "Not measured: %s\n\n", oneLine(r.LoadErr))
		return
	}
	l := r.Load
	fmt.Fprintf(b, "A fresh stack (devidp, search-admin, jobs, gateway as processes on loopback, fresh databases, Redis limits far above the load), "+
		"%d req/s for %gs of the default mix `%s`, through the gateway with tokens by client credentials. "+
		"%d rows were created before the load for updates to use. Usage: [tools/cmd/loadgen/README.md](../tools/cmd/loadgen/README.md).\n\n",
		l.Rate, l.Duration, l.Mix, l.Seeded)
	b.WriteString("| operation | requests | req/s | success | p50 | p90 | p99 | max | statuses |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range append(append(l.Operations[:0:0], l.Operations...), l.Overall) {
		fmt.Fprintf(b, "| %s | %d | %.1f | %.1f%% | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %s |\n",
			s.Operation, s.Requests, s.Rate, 100*s.Success, s.P50, s.P90, s.P99, s.Max, load.StatusList(s.Statuses))
	}
	b.WriteString("\n")
	for _, e := range l.Errors {
		fmt.Fprintf(b, "- status %d: %d × %s\n", e.Status, e.Count, e.Example)
	}
	if r.Plot != "" {
		fmt.Fprintf(b, "\n![Latency percentiles per operation](%s)\n\n", r.Plot)
	}
}

func (r *Report) writeCommands(b *strings.Builder) {
	b.WriteString("## Commands\n\nFrom the repository root, in this order:\n\n```sh\n")
	for _, s := range r.Suites {
		b.WriteString(s.Suite.Command() + "\n")
	}
	b.WriteString(r.GatewayCommand + "\n" + r.PeersCommand + "\n" + r.LoadCommand + "\n")
	if r.SearchLoadCommand != "" {
		b.WriteString(r.SearchLoadCommand + "\n")
	}
	b.WriteString("```\n")
}
