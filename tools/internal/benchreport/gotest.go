package benchreport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Suite is one go test invocation of benchmarks.
type Suite struct {
	// Area heads the report's table the results go to.
	Area string
	// Packages, Bench (the -bench pattern) and Benchtime ("200x") say
	// what runs and how often.
	Packages, Bench, Benchtime string
}

// Command is the shell command that runs the suite from the repository root.
func (s Suite) Command() string {
	return fmt.Sprintf("go test -run '^$' -bench '%s' -benchtime %s -count 1 %s", s.Bench, s.Benchtime, s.Packages)
}

func (s Suite) args() []string {
	return []string{"test", "-run", "^$", "-bench", s.Bench, "-benchtime", s.Benchtime, "-count", "1", s.Packages}
}

// Bench is one benchmark result.
type Bench struct {
	Package string
	Name    string
	Iters   int
	Metrics []Metric
}

// Metric is one value of a result, in the unit the benchmark reported
// (ns/op, B/op, allocs/op or a b.ReportMetric unit such as p99-ms).
type Metric struct {
	Value float64
	Unit  string
}

// RunSuite runs s in dir and parses its results; the output goes to log as
// it comes. A failing go test is an error naming the end of its output.
func RunSuite(ctx context.Context, dir string, s Suite, log io.Writer) ([]Bench, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", s.args()...)
	cmd.Dir = dir
	cmd.Stdout = io.MultiWriter(&out, log)
	cmd.Stderr = io.MultiWriter(&out, log)
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", s.Command(), err, lastLines(out.String(), 20))
	}
	return ParseBenchmarks(&out)
}

// ParseBenchmarks reads the results of go test -bench output in the
// standard benchmark format.
func ParseBenchmarks(r io.Reader) ([]Bench, error) {
	var benches []Bench
	rd := benchfmt.NewReader(r, "go test")
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, fmt.Errorf("parse the benchmark output: %w", rec)
		case *benchfmt.Result:
			benches = append(benches, benchOf(rec))
		}
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("read the benchmark output: %w", err)
	}
	return benches, nil
}

// benchOf copies a benchfmt result, keeping the units as reported.
func benchOf(rec *benchfmt.Result) Bench {
	name := string(rec.Name.Full())
	if i := strings.LastIndexByte(name, '-'); i > 0 && strings.Trim(name[i+1:], "0123456789") == "" {
		name = name[:i] // the GOMAXPROCS suffix
	}
	b := Bench{Package: rec.GetConfig("pkg"), Name: name, Iters: rec.Iters}
	for _, v := range rec.Values {
		if v.OrigUnit != "" {
			b.Metrics = append(b.Metrics, Metric{Value: v.OrigValue, Unit: v.OrigUnit})
		} else {
			b.Metrics = append(b.Metrics, Metric{Value: v.Value, Unit: v.Unit})
		}
	}
	return b
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
