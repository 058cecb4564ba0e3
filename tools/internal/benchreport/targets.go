package benchreport

import (
	"fmt"
	"strings"

	"github.com/municipal-apis/platform/tools/internal/searchload"
)

// Targets of the mixed load, set by this report: a shared 2-core machine
// running the whole stack must still serve the default mix cleanly.
const (
	loadMinRateShare = 0.95
	loadMaxP99Millis = 250.0
)

// Target is one goal and whether the run met it.
type Target struct {
	Name, Measured string
	Met            bool
}

// Targets evaluates the goals of the run: the gateway's own (from its
// comparison's verdict) and those of the mixed load.
func (r *Report) Targets() []Target {
	targets := append(gatewayTargets(r.Gateway.Targets), searchTargets(r.SearchLoad)...)
	if r.Load == nil {
		return targets
	}
	o := r.Load.Overall
	failed := o.Requests - uint64(float64(o.Requests)*o.Success+0.5)
	worst := o
	for _, s := range r.Load.Operations {
		if s.P99 > worst.P99 {
			worst = s
		}
	}
	return append(targets,
		Target{"mixed load: no request failed (no 4xx, 5xx or missing answer)", fmt.Sprintf("%d of %d failed", failed, o.Requests), failed == 0},
		Target{fmt.Sprintf("mixed load: sent at least %.0f%% of the asked rate", 100*loadMinRateShare),
			fmt.Sprintf("%.1f of %d req/s", o.Rate, r.Load.Rate), o.Rate >= loadMinRateShare*float64(r.Load.Rate)},
		Target{fmt.Sprintf("mixed load: p99 of every operation under %.0f ms", loadMaxP99Millis),
			fmt.Sprintf("worst %s, %.1f ms", worst.Operation, worst.P99), worst.P99 < loadMaxP99Millis},
	)
}

// gatewayTargets reads gateway-bench's verdict, "goal: **met**; goal:
// **not met**.", into targets.
func gatewayTargets(verdict string) []Target {
	var targets []Target
	for _, part := range strings.Split(strings.TrimSuffix(verdict, "."), ";") {
		i := strings.LastIndex(part, ":")
		if i < 0 {
			continue
		}
		result := strings.Trim(strings.TrimSpace(part[i+1:]), "*")
		targets = append(targets, Target{Name: "gateway: " + strings.TrimSpace(part[:i]), Measured: "see the gateway table", Met: result == "met"})
	}
	return targets
}

// Targets of search under concurrency (issue 20), for searchload's
// catalogs: the stress catalog's hybrid throughput and keyword and hybrid
// tails, the realistic catalog's tail in every mode, and no failed search.
const (
	searchStressMinHybridRate = 500.0
	searchStressMaxP99Millis  = 50.0
	searchRealisticMaxP99     = 25.0
)

// searchTargets evaluates the search-under-load goals over results; none
// when nothing was measured.
func searchTargets(results []searchload.Result) []Target {
	if len(results) == 0 {
		return nil
	}
	var out []Target
	failed, requests := 0, 0
	for _, res := range results {
		failed, requests = failed+res.Errors, requests+res.Requests
		switch {
		case res.Catalog == searchload.Stress && res.Mode == "hybrid":
			out = append(out,
				Target{fmt.Sprintf("search, stress catalog: hybrid at least %.0f req/s", searchStressMinHybridRate), fmt.Sprintf("%.0f req/s", res.Rate), res.Rate >= searchStressMinHybridRate},
				Target{fmt.Sprintf("search, stress catalog: hybrid p99 under %.0f ms", searchStressMaxP99Millis), fmt.Sprintf("%.1f ms", res.P99), res.P99 < searchStressMaxP99Millis})
		case res.Catalog == searchload.Stress && res.Mode == "keyword":
			out = append(out, Target{fmt.Sprintf("search, stress catalog: keyword p99 under %.0f ms", searchStressMaxP99Millis), fmt.Sprintf("%.1f ms", res.P99), res.P99 < searchStressMaxP99Millis})
		case res.Catalog == searchload.Realistic:
			out = append(out, Target{fmt.Sprintf("search, realistic catalog: %s p99 under %.0f ms", res.Mode, searchRealisticMaxP99), fmt.Sprintf("%.1f ms", res.P99), res.P99 < searchRealisticMaxP99})
		}
	}
	return append(out, Target{"search under load: no search failed", fmt.Sprintf("%d of %d failed", failed, requests), failed == 0})
}
