package bench

import (
	"fmt"
	"net/http"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Result is the measurement of one target.
type Result struct {
	Name       string
	Throughput float64       // successful requests per second at full speed
	P50, P99   time.Duration // latency at the fixed rate
	Success    float64       // share of 2xx answers over both phases
}

// measure runs both phases against url: as fast as workers allow, then at a
// fixed rate that leaves the machine idle enough to show per-request cost.
func measure(name, url, token string, cfg Config) (Result, error) {
	tr := vegeta.NewStaticTargeter(vegeta.Target{
		Method: http.MethodGet,
		URL:    url,
		Header: http.Header{"Authorization": {"Bearer " + token}},
	})
	attack(cfg.Workers, tr, vegeta.Rate{}, cfg.Warmup, name)
	full := attack(cfg.Workers, tr, vegeta.Rate{}, cfg.Duration, name)
	paced := attack(cfg.Workers, tr, vegeta.Rate{Freq: cfg.Rate, Per: time.Second}, cfg.Duration, name)
	r := Result{
		Name:       name,
		Throughput: full.Throughput,
		P50:        paced.Latencies.P50,
		P99:        paced.Latencies.P99,
		Success:    min(full.Success, paced.Success),
	}
	if r.Success < 1 {
		return r, fmt.Errorf("%s: only %.2f%% of requests succeeded: %v %v", name, 100*r.Success, full.StatusCodes, full.Errors)
	}
	return r, nil
}

// attack runs one phase with a fresh attacker (one stops for good after its
// attack) and returns its metrics; a zero rate means as fast as the workers go.
func attack(workers int, tr vegeta.Targeter, rate vegeta.Rate, d time.Duration, name string) vegeta.Metrics {
	a := vegeta.NewAttacker(
		vegeta.Workers(uint64(workers)), vegeta.MaxWorkers(uint64(workers)),
		vegeta.Connections(workers), vegeta.KeepAlive(true), vegeta.Timeout(10*time.Second))
	var m vegeta.Metrics
	for res := range a.Attack(tr, rate, d, name) {
		m.Add(res)
	}
	m.Close()
	return m
}
