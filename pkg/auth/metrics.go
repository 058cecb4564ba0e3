package auth

import "github.com/prometheus/client_golang/prometheus"

// collector exposes the state of a Verifier's signing keys to Prometheus,
// read when scraped so that verifying a token costs nothing more.
type collector struct {
	keys                                  *keySet
	held, stale, lastSuccess, fetchesDesc *prometheus.Desc
}

// Collector returns the Prometheus collector of v's signing keys:
// oidc_jwks_keys (keys held), oidc_jwks_stale (1 while tokens are verified
// with keys the last fetch could not confirm), oidc_jwks_last_success_timestamp_seconds
// and oidc_jwks_fetches_total by result. Register it once per Verifier.
func (v *Verifier) Collector() prometheus.Collector {
	return &collector{
		keys:        v.keys,
		held:        prometheus.NewDesc("oidc_jwks_keys", "Signing keys of the identity provider held to verify tokens.", nil, nil),
		stale:       prometheus.NewDesc("oidc_jwks_stale", "1 while the last JWKS fetch failed and tokens are verified with the keys held (or none are held).", nil, nil),
		lastSuccess: prometheus.NewDesc("oidc_jwks_last_success_timestamp_seconds", "End of the last successful JWKS fetch, Unix seconds; 0 before the first.", nil, nil),
		fetchesDesc: prometheus.NewDesc("oidc_jwks_fetches_total", "JWKS fetches by result (ok, error).", []string{"result"}, nil),
	}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.held
	ch <- c.stale
	ch <- c.lastSuccess
	ch <- c.fetchesDesc
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.keys
	held := 0
	if r := s.held.Load(); r != nil {
		held = len(r.keys)
	}
	s.mu.Lock()
	stale, ok, bad := s.lastErr != nil, s.fetchOK, s.fetchBad
	var last float64
	if !s.lastOK.IsZero() {
		last = float64(s.lastOK.UnixNano()) / 1e9
	}
	s.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(c.held, prometheus.GaugeValue, float64(held))
	ch <- prometheus.MustNewConstMetric(c.stale, prometheus.GaugeValue, map[bool]float64{true: 1}[stale])
	ch <- prometheus.MustNewConstMetric(c.lastSuccess, prometheus.GaugeValue, last)
	ch <- prometheus.MustNewConstMetric(c.fetchesDesc, prometheus.CounterValue, float64(ok), "ok")
	ch <- prometheus.MustNewConstMetric(c.fetchesDesc, prometheus.CounterValue, float64(bad), "error")
}
