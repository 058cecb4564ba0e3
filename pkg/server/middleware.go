package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/requestid"
)

// Middleware wraps an http.Handler.
type Middleware func(http.Handler) http.Handler

// Chain applies mws so that the first one is the outermost.
func Chain(h http.Handler, mws ...Middleware) http.Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// RequestID honours a sane incoming X-Request-ID, or generates one, stores it
// in the request context and echoes it in the response.
func RequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(requestid.Header)
		if !requestid.Valid(id) {
			id = requestid.New()
		}
		r.Header.Set(requestid.Header, id)
		w.Header().Set(requestid.Header, id)
		next.ServeHTTP(w, r.WithContext(requestid.With(r.Context(), id)))
	})
}

// LimitBody caps every request body at n bytes with CapBody.
func LimitBody(n int64) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := CapBody(w, r, n); err != nil {
				problem.Write(w, r, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// CapBody caps r's body at n bytes: a declared Content-Length over n is a
// 413 at once; a body without one fails with *http.MaxBytesError when read
// past n, which problem.ReadBody turns into a 413.
func CapBody(w http.ResponseWriter, r *http.Request, n int64) error {
	if r.ContentLength > n {
		return problem.BodyTooLarge(n)
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, n)
	}
	return nil
}

// UseLogger gives every request logger, so that the failures problem.Write
// and Recover log follow the program's format and level and carry the
// request id, whatever the process-wide default logger is.
func UseLogger(logger *slog.Logger) Middleware {
	return func(next http.Handler) http.Handler {
		if logger == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(problem.WithLogger(r.Context(), logger)))
		})
	}
}

// Recover turns a panic into a 500 problem response and logs the stack.
func Recover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			logPanic(r.Context(), v)
			problem.Write(w, r, problem.Wrap(problem.EINTERNAL, errors.New("panic"), ""))
		}()
		next.ServeHTTP(w, r)
	})
}

// AccessLog writes one structured line per request: never headers, query
// strings or bodies, which may carry tokens or personal data.
func AccessLog(logger *slog.Logger, skip ...string) Middleware {
	skipped := map[string]bool{}
	for _, p := range skip {
		skipped[p] = true
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if skipped[r.URL.Path] {
				next.ServeHTTP(w, r)
				return
			}
			start := time.Now()
			rec := wrap(w)
			ctx, info := withRoute(r.Context())
			next.ServeHTTP(rec, withContext(r, ctx))
			logRequest(r.Context(), logger, r.Method, r.URL.Path, info.route, rec.status, rec.bytes, time.Since(start), r.RemoteAddr, nil)
		})
	}
}

// logRequest writes the access-log line of one request. The client's
// address is remote, or addr's String when addr is set (formatted only if
// the line is written).
func logRequest(ctx context.Context, logger *slog.Logger, method, path, route string, status int, bytes int64, d time.Duration, remote string, addr net.Addr) {
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	if h, ok := logger.Handler().(contextHandler); ok && h.requests != nil && h.requests.log(&requestLine{
		ctx: ctx, time: time.Now(), level: level, method: method, path: path, route: route,
		status: status, bytes: bytes, d: d, remote: remote, addr: addr,
	}) {
		return
	}
	if addr != nil {
		if !logger.Enabled(ctx, level) {
			return
		}
		remote = addr.String()
	}
	logger.LogAttrs(ctx, level, "request",
		slog.String("method", method),
		slog.String("path", path),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Int64("bytes", bytes),
		slog.Duration("duration", d),
		slog.String("remote", remote),
	)
}

// logPanic logs a recovered panic with its stack.
func logPanic(ctx context.Context, v any) {
	problem.Logger(ctx).ErrorContext(ctx, "panic", "value", fmt.Sprint(v), "stack", string(debug.Stack()))
}
