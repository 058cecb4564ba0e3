package server

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/requestid"
)

// scope is the state Handler's middleware keeps per request (request id,
// logger, route) in one context value, so the chain derives the request
// once instead of once per middleware: each r.WithContext copies the whole
// http.Request, and each context.WithValue is an allocation of its own.
type scope struct {
	context.Context
	id     string
	logger *slog.Logger // nil: problem.Logger falls back to the parent's
	route  routeInfo
	caller caller
}

// caller is who a request came from, once its token was verified, and the
// rate limit that refused it, if one did: every log line of the request
// carries them (client_id, department, limit), so that a 429 or an error
// in the access log names whom it concerns.
type caller struct {
	ClientID   string
	Department string
	Limit      string // the kind of limit that refused the request, if any
}

// logMember is one name and value of a log line.
type logMember struct{ name, value string }

// members are c's log members in the order every line carries them: the
// slog handler (contextHandler) and the hand-written access line
// (requestLine.appendTo) both write these, leaving out an empty value.
func (c *caller) members() [3]logMember {
	return [3]logMember{{"client_id", c.ClientID}, {"department", c.Department}, {"limit", c.Limit}}
}

// callerKey keys a request's *caller in its context.
type callerKey struct{}

// callerOf returns the caller recorded in ctx, or nil.
func callerOf(ctx context.Context) *caller {
	c, _ := ctx.Value(callerKey{}).(*caller)
	return c
}

// requestIDHeader is requestid.Header in its canonical form.
var requestIDHeader = http.CanonicalHeaderKey(requestid.Header)

var (
	requestIDKey = requestid.ContextKey()
	loggerKey    = problem.LoggerKey()
)

func (s *scope) Value(key any) any {
	switch key {
	case routeKey{}:
		return &s.route
	case requestIDKey:
		return &s.id
	case callerKey{}:
		return &s.caller
	case loggerKey:
		if s.logger != nil {
			return s.logger
		}
	}
	return s.Context.Value(key)
}

// requestScope is RequestID, UseLogger and the route record of AccessLog and
// Metrics in one step: it honours or generates the request id, echoes it,
// and derives the request once with a scope carrying all three.
func requestScope(logger *slog.Logger) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The header maps are indexed with the canonical key directly:
			// Get and Set would canonicalize requestid.Header ("X-Request-ID")
			// into a new string on every call.
			v := r.Header[requestIDHeader]
			var id string
			if len(v) > 0 {
				id = v[0]
			}
			if !requestid.Valid(id) {
				id = requestid.New()
			}
			if len(v) != 1 || v[0] != id {
				r.Header[requestIDHeader] = []string{id}
			}
			w.Header()[requestIDHeader] = []string{id}
			s := &scope{Context: r.Context(), id: id, logger: logger, route: routeInfo{route: unmatchedRoute}}
			next.ServeHTTP(w, r.WithContext(s))
		})
	}
}
