package server

import (
	"log/slog"
	"net/http"
)

// Options wires the shared endpoints and middleware around a program's own handler.
type Options struct {
	Logger       *slog.Logger
	Metrics      *Metrics
	Checks       []Check
	MaxBodyBytes int64
	App          http.Handler
}

// Probe paths served by every program, outside any routed prefix and without a token.
const (
	PathLivez   = "/livez"
	PathReadyz  = "/readyz"
	PathMetrics = "/metrics"
)

// Handler returns the full handler of a program: /livez, /readyz and /metrics
// beside App, all behind request ids, access logs, metrics, panic recovery
// and the body limit. Paths are matched exactly and never cleaned or
// redirected, so App sees the request path as the client sent it.
func Handler(o Options) http.Handler {
	readyz := Readyz(o.Logger, o.Checks...)
	metrics := o.Metrics.Handler()
	root := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			switch r.URL.Path {
			case PathLivez:
				SetRoute(r, PathLivez)
				Livez(w, r)
				return
			case PathReadyz:
				SetRoute(r, PathReadyz)
				readyz(w, r)
				return
			case PathMetrics:
				SetRoute(r, PathMetrics)
				metrics.ServeHTTP(w, r)
				return
			}
		}
		o.App.ServeHTTP(w, r)
	})
	return Chain(root,
		RequestID,
		UseLogger(o.Logger),
		AccessLog(o.Logger, PathLivez, PathReadyz, PathMetrics),
		o.Metrics.Middleware,
		Recover,
		LimitBody(o.MaxBodyBytes),
	)
}
