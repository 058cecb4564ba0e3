package benchreport

import (
	"strconv"
	"strings"
	"testing"
)

// goTestOutput is go test -bench output as the modules print it.
const goTestOutput = `goos: linux
goarch: amd64
pkg: github.com/municipal-apis/platform/services/jobs/internal/http
cpu: Intel(R) Xeon(R) CPU @ 2.20GHz
BenchmarkCreateEmprego-2   	    1000	   1178313 ns/op	         2.634 p50-ms	        24.10 p99-ms	       848.7 req/s
BenchmarkSearch/keyword-2  	     200	    812345 ns/op	    35120 B/op	     370 allocs/op
PASS
ok  	github.com/municipal-apis/platform/services/jobs/internal/http	12.3s
`

func TestParseBenchmarks(t *testing.T) {
	t.Parallel()
	benches, err := ParseBenchmarks(strings.NewReader(goTestOutput))
	if err != nil {
		t.Fatal(err)
	}
	if len(benches) != 2 {
		t.Fatalf("%d results, want 2: %+v", len(benches), benches)
	}
	tests := []struct {
		name  string
		bench Bench
		want  string
	}{
		{"custom units keep their names and values", benches[0], "CreateEmprego in services/jobs/internal/http ×1000: 1178313 ns/op, 2.634 p50-ms, 24.1 p99-ms, 848.7 req/s"},
		{"sub-benchmarks and memory units are read", benches[1], "Search/keyword in services/jobs/internal/http ×200: 812345 ns/op, 35120 B/op, 370 allocs/op"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := describe(tt.bench); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParseBenchmarksRefusesABrokenLine(t *testing.T) {
	t.Parallel()
	if _, err := ParseBenchmarks(strings.NewReader("BenchmarkX-2 100 12 ns/op 7\n")); err == nil {
		t.Fatal("a value without unit was accepted")
	}
}

// describe writes a result on one line for comparison.
func describe(b Bench) string {
	parts := make([]string, len(b.Metrics))
	for i, m := range b.Metrics {
		parts[i] = strconv.FormatFloat(m.Value, 'f', -1, 64) + " " + m.Unit
	}
	return b.Name + " in " + shortPackage(b.Package) + " ×" + strconv.Itoa(b.Iters) + ": " + strings.Join(parts, ", ")
}
