// Package proxy forwards a routed request to its upstream with
// httputil.ReverseProxy: one tuned Transport per upstream, identity headers
// replaced by the verified ones, and upstream failures turned into 502/504
// problem responses.
package proxy

import (
	"net"
	"net/http"
	"time"
)

// Config tunes the connections to every upstream.
type Config struct {
	DialTimeout      time.Duration `env:"UPSTREAM_DIAL_TIMEOUT, default=2s"`
	ResponseTimeout  time.Duration `env:"UPSTREAM_RESPONSE_TIMEOUT, default=30s"`
	IdleConnTimeout  time.Duration `env:"UPSTREAM_IDLE_CONN_TIMEOUT, default=90s"`
	MaxIdleConnsHost int           `env:"UPSTREAM_MAX_IDLE_CONNS_PER_HOST, default=256"`
}

// newTransport builds the Transport of one upstream. Proxy environment
// variables are ignored: upstreams are reached directly.
func newTransport(c Config) *http.Transport {
	d := &net.Dialer{Timeout: c.DialTimeout, KeepAlive: 30 * time.Second}
	return &http.Transport{
		DialContext:           d.DialContext,
		MaxIdleConns:          c.MaxIdleConnsHost,
		MaxIdleConnsPerHost:   c.MaxIdleConnsHost,
		IdleConnTimeout:       c.IdleConnTimeout,
		ResponseHeaderTimeout: c.ResponseTimeout,
		TLSHandshakeTimeout:   c.DialTimeout,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
	}
}
