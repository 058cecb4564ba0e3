package benchreport

import (
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/tools/internal/load"
	"github.com/municipal-apis/platform/tools/internal/searchload"
)

// gatewayMarkdown is a report of gateway-bench as it writes it.
const gatewayMarkdown = `# Gateway benchmark

Run on 2 CPUs.

| target | requests/s | × direct | p50 | p99 | added p50 |
|---|---:|---:|---:|---:|---:|
| direct to the upstream | 27212 | 1.00 | 0.121 ms | 0.403 ms | 0.000 ms |
| gateway: auth + Redis limits | 6192 | 0.23 | 0.405 ms | 2.135 ms | 0.283 ms |

Targets: throughput through the gateway at least 0.8× direct: **not met**; added p50 under 500µs: **met**.
`

func TestParseGatewayReport(t *testing.T) {
	t.Parallel()
	t.Run("the table and the verdict are kept", func(t *testing.T) {
		t.Parallel()
		res, err := parseGatewayReport(gatewayMarkdown)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Table) != 4 || !strings.Contains(res.Table[3], "6192") || !strings.HasPrefix(res.Targets, "throughput") {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("a report without table is an error", func(t *testing.T) {
		t.Parallel()
		if _, err := parseGatewayReport("# Gateway benchmark\n\nrefused: load too high\n"); err == nil {
			t.Fatal("accepted")
		}
	})
}

// sampleLoad is a load report with one slow operation and one failure.
func sampleLoad() *load.Report {
	return &load.Report{
		Marker: "lg-test", Mix: "create-servico=1,search=1", Rate: 50, Duration: 20, Seeded: 3,
		Overall: load.Stats{Operation: "all", Requests: 1000, Rate: 49.9, Success: 0.999, P50: 4, P90: 9, P99: 30, Max: 80, Statuses: map[string]int{"201": 499, "200": 500, "503": 1}},
		Operations: []load.Stats{
			{Operation: "create-servico", Requests: 500, Rate: 25, Success: 1, P50: 5, P90: 10, P99: 20, Max: 30, Statuses: map[string]int{"201": 499, "503": 1}},
			{Operation: "search", Requests: 500, Rate: 25, Success: 1, P50: 3, P90: 8, P99: 300, Max: 400, Statuses: map[string]int{"200": 500}},
		},
		Errors: []load.StatusErrors{{Status: 503, Count: 1, Example: "Service Unavailable: postgres is down"}},
	}
}

func TestTargets(t *testing.T) {
	t.Parallel()
	gw, err := parseGatewayReport(gatewayMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Gateway: gw, Load: sampleLoad()}
	want := map[string]bool{
		"gateway: throughput through the gateway at least 0.8× direct":  false,
		"gateway: added p50 under 500µs":                                true,
		"mixed load: no request failed (no 4xx, 5xx or missing answer)": false,
		"mixed load: sent at least 95% of the asked rate":               true,
		"mixed load: p99 of every operation under 250 ms":               false,
	}
	got := r.Targets()
	if len(got) != len(want) {
		t.Fatalf("%d targets, want %d: %+v", len(got), len(want), got)
	}
	for _, tt := range got {
		t.Run(tt.Name+" is judged from the measures", func(t *testing.T) {
			met, ok := want[tt.Name]
			if !ok || met != tt.Met {
				t.Fatalf("met %v (%s), want %v (known: %v)", tt.Met, tt.Measured, met, ok)
			}
		})
	}
}

func TestWriteMarkdown(t *testing.T) {
	t.Parallel()
	gw, err := parseGatewayReport(gatewayMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	jobs := Suite{Area: "jobs", Packages: "./services/jobs/...", Bench: ".", Benchtime: "10x"}
	r := &Report{
		Started: time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC), Elapsed: 5 * time.Minute,
		Machine: Machine{CPUs: 2, CPUModel: "Xeon", GoVersion: "go1.26.8", Platform: "linux/amd64", LoadStart: "1.20 1.00 0.90", LoadEnd: "2.00 1.50 1.00"},
		Suites: []SuiteResult{
			{Suite: jobs, Benches: []Bench{{Package: modulePrefix + "services/jobs/internal/http", Name: "CreateEmprego", Iters: 10,
				Metrics: []Metric{{1178313, "ns/op"}, {2.634, "p50-ms"}, {848.7, "req/s"}}}}},
			{Suite: Suite{Area: "search-admin", Packages: "./services/search-admin/...", Bench: "Reindex", Benchtime: "2x"}, Err: errors.New("exit status 1\nFAIL database down")},
		},
		GatewayCommand: "go run ./gateway/cmd/gateway-bench", Gateway: gw,
		LoadCommand: "go run ./tools/cmd/loadgen", Load: sampleLoad(), Plot: "benchmarks-latency.png",
	}
	var sb strings.Builder
	if err := r.WriteMarkdown(&sb); err != nil {
		t.Fatal(err)
	}
	md := sb.String()
	for _, want := range []string{
		"| CPUs | 2 |", "| load average (1, 5, 15 min) at start | 1.20 1.00 0.90 |",
		"| gateway: added p50 under 500µs | see the gateway table | **met** |",
		"| gateway: auth + Redis limits | 6192 |",
		"| benchmark | package | runs | time/op | p50-ms | req/s |",
		"| CreateEmprego | services/jobs/internal/http | 10 | 1.18ms | 2.634 | 848.7 |",
		"failed:\n\n```\nexit status 1\nFAIL database down\n```",
		"| search | 500 | 25.0 | 100.0% | 3.00 ms | 8.00 ms | 300.00 ms | 400.00 ms | 200×500 |",
		"- status 503: 1 × Service Unavailable: postgres is down",
		"![Latency percentiles per operation](benchmarks-latency.png)",
		"(../services/jobs/BENCHMARKS.md)",
		jobs.Command(),
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", md)
	}
}

func TestWriteLatencyPlot(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "latency.png")
	if err := WriteLatencyPlot(path, sampleLoad()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 200 {
		t.Fatalf("plot of %dx%d pixels is too small to read", b.Dx(), b.Dy())
	}
}

func TestFormatMetric(t *testing.T) {
	t.Parallel()
	tests := []struct {
		metric Metric
		want   string
	}{
		{Metric{163873, "ns/op"}, "164µs"},
		{Metric{1178313, "ns/op"}, "1.18ms"},
		{Metric{35120, "B/op"}, "34.3 KiB"},
		{Metric{370, "allocs/op"}, "370"},
		{Metric{848.712, "req/s"}, "848.7"},
	}
	for _, tt := range tests {
		t.Run(tt.metric.Unit+" reads as "+tt.want, func(t *testing.T) {
			t.Parallel()
			if got := formatMetric(tt.metric); got != tt.want {
				t.Fatalf("got %q", got)
			}
		})
	}
}

func TestSearchTargetsFollowTheIssue(t *testing.T) {
	t.Parallel()
	results := []searchload.Result{
		{Catalog: searchload.Realistic, Mode: "hybrid", Requests: 100, P99: 20},
		{Catalog: searchload.Stress, Mode: "keyword", Requests: 100, P99: 60},
		{Catalog: searchload.Stress, Mode: "hybrid", Requests: 100, Rate: 520, P99: 45, Errors: 2},
	}
	met := map[string]bool{}
	for _, tg := range searchTargets(results) {
		met[tg.Name] = tg.Met
	}
	want := map[string]bool{
		"search, realistic catalog: hybrid p99 under 25 ms": true,
		"search, stress catalog: keyword p99 under 50 ms":   false,
		"search, stress catalog: hybrid at least 500 req/s": true,
		"search, stress catalog: hybrid p99 under 50 ms":    true,
		"search under load: no search failed":               false,
	}
	for name, m := range want {
		if got, ok := met[name]; !ok || got != m {
			t.Errorf("%s: met %v (present %v), want %v", name, got, ok, m)
		}
	}
	if searchTargets(nil) != nil {
		t.Error("targets without a measurement")
	}
	var b strings.Builder
	(&Report{SearchLoad: results}).writeSearchLoad(&b)
	if !strings.Contains(b.String(), "| stress | hybrid |") {
		t.Fatalf("section:\n%s", b.String())
	}
}
