package benchreport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// PeerBench is the gateway beside nginx and HAProxy doing the same work
// (scripts/gateway-peers.sh): the same upstream, token and wrk load.
type PeerBench struct {
	// Rounds and Duration are its ROUNDS and DUR.
	Rounds   int
	Duration string
}

// Command is the shell command that runs the comparison from the repository root.
func (p PeerBench) Command() string {
	return fmt.Sprintf("ROUNDS=%d DUR=%s scripts/gateway-peers.sh", p.Rounds, p.Duration)
}

// PeerResult is what the comparison printed: its table, the gateway's
// ratios to its peers, the table of its paced phase (the same load sent to
// each target, Paced saying which) and its verdict on each of the gateway's
// goals.
type PeerResult struct {
	Table      []string
	Ratios     string
	Paced      string
	PacedTable []string
	Goals      []string
	Load       string
}

// Run runs the comparison in dir, its progress going to log.
func (p PeerBench) Run(ctx context.Context, dir string, log io.Writer) (PeerResult, error) {
	cmd := exec.CommandContext(ctx, "scripts/gateway-peers.sh")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), fmt.Sprintf("ROUNDS=%d", p.Rounds), "DUR="+p.Duration)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, log), log
	if err := cmd.Run(); err != nil {
		return PeerResult{}, fmt.Errorf("%s: %w", p.Command(), err)
	}
	return parsePeerReport(out.String())
}

// parsePeerReport keeps the tables, the ratios, the goals and the load
// average of the comparison's output: a table after the "paced: " line is
// the paced phase's.
func parsePeerReport(s string) (PeerResult, error) {
	var res PeerResult
	for _, line := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(line, "|") && res.Paced != "":
			res.PacedTable = append(res.PacedTable, line)
		case strings.HasPrefix(line, "|"):
			res.Table = append(res.Table, line)
		case strings.HasPrefix(line, "paced: "):
			res.Paced = strings.TrimSpace(strings.TrimPrefix(line, "paced: "))
		case strings.HasPrefix(line, "gateway/"):
			res.Ratios = strings.TrimSpace(line)
		case strings.HasPrefix(line, "goal: "):
			res.Goals = append(res.Goals, strings.TrimSpace(strings.TrimPrefix(line, "goal: ")))
		case strings.HasPrefix(line, "load average at the end: "):
			res.Load = strings.TrimPrefix(line, "load average at the end: ")
		}
	}
	if len(res.Table) < 3 || res.Ratios == "" {
		return res, fmt.Errorf("gateway-peers: no result table in its output")
	}
	return res, nil
}
