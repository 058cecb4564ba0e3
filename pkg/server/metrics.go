package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds the HTTP metrics of one program in its own registry.
type Metrics struct {
	Registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	// series holds the counter and histogram of every label set seen, so
	// a request finds its pair with one map lookup instead of two
	// WithLabelValues (a label hash and a status string each).
	series SeriesMap[seriesKey, series]
}

type seriesKey struct {
	route, method string
	status        int
}

type series struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// seriesOf returns the pair labelled route, method and status, creating
// it on first use.
func (m *Metrics) seriesOf(route, method string, status int) series {
	return m.series.Get(seriesKey{route, method, status}, func() series {
		code := strconv.Itoa(status)
		return series{
			requests: m.requests.WithLabelValues(route, method, code),
			latency:  m.latency.WithLabelValues(route, method, code),
		}
	})
}

// NewMetrics creates a registry with Go and process collectors and the
// request count and latency by route, method and status.
func NewMetrics() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		Registry: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "http_requests_total",
			Help: "HTTP requests served, by route template, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "http_request_duration_seconds",
			Help:    "HTTP request latency, by route template, method and status.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method", "status"}),
	}
	reg.MustRegister(m.requests, m.latency)
	return m
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// Middleware counts and times every request by the route set with SetRoute.
func (m *Metrics) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := wrap(w)
		ctx, info := withRoute(r.Context())
		next.ServeHTTP(rec, withContext(r, ctx))
		m.observe(info.route, r.Method, rec.status, time.Since(start))
	})
}

// observe counts and times one request; a method other than the usual ones
// is counted as OTHER, so clients cannot add series.
func (m *Metrics) observe(route, method string, status int, d time.Duration) {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
	default:
		method = "OTHER"
	}
	s := m.seriesOf(route, method, status)
	s.requests.Inc()
	s.latency.Observe(d.Seconds())
}
