package ratelimit

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the rate-limit series of the gateway.
type Metrics struct {
	rejections  *prometheus.CounterVec
	fallback    prometheus.Gauge
	switches    *prometheus.CounterVec
	storeErrors prometheus.Counter
	roundTrips  prometheus.Counter
	admitted    prometheus.Counter
}

// NewMetrics creates the rate-limit series and registers them with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_ratelimit_rejections_total",
			Help: "Requests answered 429, by the kind of limit reached (ip, client, department).",
		}, []string{"kind"}),
		fallback: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gateway_ratelimit_fallback",
			Help: "1 while rate-limit counters are kept in this instance's memory because Redis is unreachable, else 0.",
		}),
		switches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_ratelimit_store_switches_total",
			Help: "Switches of the rate-limit counters between Redis and memory, by the store switched to.",
		}, []string{"to"}),
		storeErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_ratelimit_store_errors_total",
			Help: "Failed Redis calls and probes of the rate-limit store.",
		}),
		roundTrips: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_ratelimit_redis_round_trips_total",
			Help: "Redis round trips made to count authenticated requests against their client and department limits (leases, counts, takebacks); divided by gateway_ratelimit_admitted_total, the round trips per admitted request.",
		}),
		admitted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_ratelimit_admitted_total",
			Help: "Authenticated requests admitted by the client and department limits while the counters are kept in Redis.",
		}),
	}
	for _, c := range []prometheus.Collector{m.rejections, m.fallback, m.switches, m.storeErrors, m.roundTrips, m.admitted} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register rate-limit metrics: %w", err)
		}
	}
	// Every kind is exported from the start, at 0, so that rate() and an
	// alert on it see the series before the first refusal.
	for _, k := range []Kind{KindIP, KindClient, KindDepartment} {
		m.rejections.WithLabelValues(string(k))
	}
	return m, nil
}
