package benchreport

import (
	"fmt"
	"strings"
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
	targets := gatewayTargets(r.Gateway.Targets)
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
