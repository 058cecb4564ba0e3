package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Check is one dependency probed by /readyz. A failing Critical check makes
// the program not ready (503); a failing non-critical one is reported as
// degraded while the program keeps serving. A probe error that reports
// Degraded() true is degraded even for a critical check: the dependency is
// down, but the program still does its work (an identity provider whose
// keys are held).
type Check struct {
	Name     string
	Critical bool
	Probe    func(ctx context.Context) error
}

// Readiness is the /readyz body: a status and, per check, "ok" or a state
// with a short cause code such as "degraded: unreachable". Error text, which
// may name internal addresses, only goes to the log.
type Readiness struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

// checkTimeout bounds each probe so a hung dependency cannot hang /readyz.
const checkTimeout = 2 * time.Second

// Cause returns the short code /readyz shows for a failed probe: the
// error's own ProbeCause() when it has one, else "timeout", "unreachable"
// (a network error) or "failed".
func Cause(err error) string {
	var c interface{ ProbeCause() string }
	var ne net.Error
	switch {
	case errors.As(err, &c):
		return c.ProbeCause()
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.As(err, &ne):
		return "unreachable"
	}
	return "failed"
}

// degraded reports whether err says the program still works without the dependency.
func degraded(err error) bool {
	var d interface{ Degraded() bool }
	return errors.As(err, &d) && d.Degraded()
}

// livezBody is /livez's answer, on either server.
const livezBody = `{"status":"ok"}` + "\n"

// Livez answers 200 while the process runs.
func Livez(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, livezBody)
}

// Readyz probes every check concurrently and answers 200, or 503 when a
// critical one fails. Each change of a check's state is logged once, with
// the error.
func Readyz(logger *slog.Logger, checks ...Check) http.HandlerFunc {
	states := &stateLog{logger: logger, last: map[string]string{}}
	return func(w http.ResponseWriter, r *http.Request) {
		res := Readiness{Status: "ok", Checks: make(map[string]string, len(checks))}
		var mu sync.Mutex
		var wg sync.WaitGroup
		ready := true
		for _, c := range checks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(r.Context(), checkTimeout)
				defer cancel()
				err := c.Probe(ctx)
				down := err != nil && c.Critical && !degraded(err)
				state := "ok"
				switch {
				case down:
					state = "down: " + Cause(err)
				case err != nil:
					state = "degraded: " + Cause(err)
				}
				states.record(r.Context(), c.Name, state, err)
				mu.Lock()
				defer mu.Unlock()
				res.Checks[c.Name] = state
				switch {
				case down:
					ready = false
				case err != nil && res.Status == "ok":
					res.Status = "degraded"
				}
			}()
		}
		wg.Wait()
		status := http.StatusOK
		if !ready {
			res.Status = "unavailable"
			status = http.StatusServiceUnavailable
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(res)
	}
}

// stateLog remembers the last state of every check and logs changes.
type stateLog struct {
	logger *slog.Logger
	mu     sync.Mutex
	last   map[string]string
}

func (s *stateLog) record(ctx context.Context, name, state string, err error) {
	s.mu.Lock()
	prev, seen := s.last[name]
	s.last[name] = state
	s.mu.Unlock()
	switch {
	case prev == state || (!seen && err == nil):
	case err == nil:
		s.logger.InfoContext(ctx, "readiness check recovered", "check", name, "was", prev)
	default:
		s.logger.WarnContext(ctx, "readiness check failing", "check", name, "state", state, "err", err)
	}
}
