package proxy

import (
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/municipal-apis/platform/pkg/server"
)

// Metrics are the upstream series of the gateway.
type Metrics struct {
	latency *prometheus.HistogramVec
	stale   *prometheus.CounterVec
	// observers holds the histogram of every route and outcome seen.
	observers server.SeriesMap[outcomeKey, prometheus.Observer]
}

type outcomeKey struct{ route, outcome string }

// NewMetrics creates the upstream latency histogram and registers it with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "gateway_upstream_duration_seconds",
		Help:    "Time from forwarding a request to the upstream's response headers or failure, by route prefix and outcome (status code, timeout, unreachable, too_large).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"route", "outcome"}),
		stale: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_upstream_stale_connections_total",
			Help: "Pooled upstream connections found closed by the upstream, or holding bytes no request asked for, and closed before a request was sent on them, by route prefix.",
		}, []string{"route"}),
	}
	for _, c := range []prometheus.Collector{m.latency, m.stale} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register upstream metrics: %w", err)
		}
	}
	return m, nil
}

// staleConn counts a pooled connection of route found stale.
func (m *Metrics) staleConn(route string) { m.stale.WithLabelValues(route).Inc() }

// observe records an upstream answer with status.
func (m *Metrics) observe(route string, status int, start time.Time) {
	code := ""
	if status >= 0 && status < len(statusCodes) {
		code = statusCodes[status]
	} else {
		code = strconv.Itoa(status)
	}
	m.observeOutcome(route, code, start)
}

// statusCodes are the status labels made once: strconv.Itoa allocates for
// every number over 99.
var statusCodes = func() (codes [600]string) {
	for i := range codes {
		codes[i] = strconv.Itoa(i)
	}
	return codes
}()

// observeOutcome records an upstream call that ended with outcome.
func (m *Metrics) observeOutcome(route, outcome string, start time.Time) {
	m.observer(route, outcome).Observe(time.Since(start).Seconds())
}

// observer returns the series of route and outcome, creating it on first
// use. Routes are the configured prefixes and outcomes a bounded set, so
// the map stays small.
func (m *Metrics) observer(route, outcome string) prometheus.Observer {
	return m.observers.Get(outcomeKey{route, outcome}, func() prometheus.Observer {
		return m.latency.WithLabelValues(route, outcome)
	})
}
