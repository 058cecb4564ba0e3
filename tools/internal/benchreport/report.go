package benchreport

import (
	"time"

	"github.com/municipal-apis/platform/tools/internal/load"
	"github.com/municipal-apis/platform/tools/internal/searchload"
)

// Report is everything one run of the benchmark set measured; a part that
// failed keeps its error, so the report says what is missing and why.
type Report struct {
	Started time.Time
	Elapsed time.Duration
	Machine Machine
	Suites  []SuiteResult

	GatewayCommand string
	Gateway        GatewayResult
	GatewayErr     error

	PeersCommand string
	Peers        PeerResult
	PeersErr     error

	LoadCommand string
	Load        *load.Report
	LoadErr     error

	SearchLoadCommand string
	SearchLoad        []searchload.Result
	SearchLoadErr     error
	// Plot is the latency plot's path relative to the report.
	Plot string
}

// SuiteResult is the outcome of one suite.
type SuiteResult struct {
	Suite   Suite
	Benches []Bench
	Err     error
}

// Failed reports whether any part of the run failed.
func (r *Report) Failed() bool {
	for _, s := range r.Suites {
		if s.Err != nil {
			return true
		}
	}
	return r.GatewayErr != nil || r.PeersErr != nil || r.LoadErr != nil || r.SearchLoadErr != nil
}

// suitesOf returns the results of the suites of area.
func (r *Report) suitesOf(area string) []SuiteResult {
	var out []SuiteResult
	for _, s := range r.Suites {
		if s.Suite.Area == area {
			out = append(out, s)
		}
	}
	return out
}
