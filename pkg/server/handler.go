package server

import (
	"log/slog"
	"net/http"

	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Options wires the shared endpoints and middleware around a program's own handler.
type Options struct {
	Logger       *slog.Logger
	Metrics      *Metrics
	MaxBodyBytes int64
	App          http.Handler
	// Tracer, when set, gives every request but /livez a server span
	// (Trace); nil adds nothing.
	Tracer trace.TracerProvider
}

// AdminOptions are what a program's admin listener (ADMIN_ADDR) serves: its
// readiness checks and its metrics.
type AdminOptions struct {
	Logger  *slog.Logger
	Metrics *Metrics
	Checks  []Check
}

// Probe paths served by every program without a token: /livez on both
// listeners, /readyz and /metrics on the admin listener only.
const (
	PathLivez   = "/livez"
	PathReadyz  = "/readyz"
	PathMetrics = "/metrics"
)

// Handler returns the public handler of a program: /livez beside App, all
// behind request ids, server spans (when o.Tracer is set), access logs,
// metrics, compression (Compress), panic recovery and the body limit.
// /readyz and /metrics are not here but on AdminHandler, so what the
// internet reaches never tells the state of a dependency. Paths are matched
// exactly and never cleaned or redirected, so App sees the request path as
// the client sent it.
func Handler(o Options) http.Handler {
	root := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == PathLivez {
			SetRoute(r, PathLivez)
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				problem.Write(w, r, probeMethodRefused(PathLivez))
				return
			}
			Livez(w, r)
			return
		}
		o.App.ServeHTTP(w, r)
	})
	// requestScope is RequestID and UseLogger, and records the route for
	// AccessLog and Metrics, with one copy of the request.
	return Chain(root,
		requestScope(o.Logger),
		Trace(o.Tracer),
		AccessLog(o.Logger, PathLivez),
		o.Metrics.Middleware,
		// Outside Recover, so that the 500 of a panic goes out through
		// the compressor like any answer.
		Compress,
		Recover,
		LimitBody(o.MaxBodyBytes),
	)
}

// AdminHandler returns the handler of a program's admin listener: /livez,
// /readyz (bodies with short cause codes, details in the log) and /metrics
// for the orchestrator's probes and Prometheus; anything else is a 404.
func AdminHandler(o AdminOptions) http.Handler {
	readyz := Readyz(o.Logger, o.Checks...)
	metrics := o.Metrics.Handler()
	root := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			problem.Write(w, r, probeMethodRefused("the admin listener"))
			return
		}
		switch r.URL.Path {
		case PathLivez:
			SetRoute(r, PathLivez)
			Livez(w, r)
		case PathReadyz:
			SetRoute(r, PathReadyz)
			readyz(w, r)
		case PathMetrics:
			SetRoute(r, PathMetrics)
			metrics.ServeHTTP(w, r)
		default:
			problem.Write(w, r, problem.Errorf(problem.ENOTFOUND, "the admin listener serves %s, %s and %s only", PathLivez, PathReadyz, PathMetrics))
		}
	})
	return Chain(root, requestScope(o.Logger), o.Metrics.Middleware, Recover)
}

// probeMethodRefused is the 405 of a request to what answers GET and HEAD
// only (a probe, the admin listener), on either kind of server.
func probeMethodRefused(what string) error {
	return problem.Errorf(problem.EMETHOD, "%s answers GET and HEAD only", what).WithHeader("Allow", "GET, HEAD")
}
