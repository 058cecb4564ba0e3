package benchreport

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// GatewayBench is the gateway's vegeta comparison (gateway/cmd/gateway-bench).
type GatewayBench struct {
	// Duration, Warmup and MaxLoad are its -duration, -warmup and -max-load.
	Duration, Warmup string
	MaxLoad          float64
}

// Command is the shell command that runs the comparison from the
// repository root, writing its Markdown to out.
func (g GatewayBench) Command(out string) string {
	return "go run ./gateway/cmd/gateway-bench " + strings.Join(g.args(out), " ")
}

func (g GatewayBench) args(out string) []string {
	return []string{"-duration", g.Duration, "-warmup", g.Warmup, "-max-load", fmt.Sprint(g.MaxLoad), "-out", out}
}

// GatewayResult is what the comparison printed: its table and its verdict
// on the gateway's targets.
type GatewayResult struct {
	Table   []string
	Targets string
}

// Run runs the comparison in dir, writing its own report to a temporary
// file (gateway/BENCHMARKS.md, its default, is the gateway engineers'), and
// keeps the table and the targets line.
func (g GatewayBench) Run(ctx context.Context, dir string, log io.Writer) (GatewayResult, error) {
	tmp, err := os.MkdirTemp("", "benchreport-gateway-")
	if err != nil {
		return GatewayResult{}, fmt.Errorf("gateway-bench: %w", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "gateway.md")
	cmd := exec.CommandContext(ctx, "go", append([]string{"run", "./gateway/cmd/gateway-bench"}, g.args(out)...)...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, log, log
	if err := cmd.Run(); err != nil {
		return GatewayResult{}, fmt.Errorf("%s: %w", g.Command(out), err)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		return GatewayResult{}, fmt.Errorf("gateway-bench: read its report: %w", err)
	}
	return parseGatewayReport(string(md))
}

// parseGatewayReport keeps the table lines and the "Targets:" line of the
// comparison's Markdown.
func parseGatewayReport(md string) (GatewayResult, error) {
	var res GatewayResult
	for _, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "|"):
			res.Table = append(res.Table, line)
		case strings.HasPrefix(line, "Targets:"):
			res.Targets = strings.TrimSpace(strings.TrimPrefix(line, "Targets:"))
		}
	}
	if len(res.Table) < 3 {
		return res, fmt.Errorf("gateway-bench: no result table in its report")
	}
	return res, nil
}
