package server

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// Check is one dependency probed by /readyz. A failing Critical check makes
// the program not ready (503); a failing non-critical one is reported as
// degraded while the program keeps serving.
type Check struct {
	Name     string
	Critical bool
	Probe    func(ctx context.Context) error
}

// Readiness is the /readyz body.
type Readiness struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

// checkTimeout bounds each probe so a hung dependency cannot hang /readyz.
const checkTimeout = 2 * time.Second

// Livez answers 200 while the process runs.
func Livez(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
}

// Readyz probes every check concurrently and answers 200, or 503 when a
// critical one fails.
func Readyz(checks ...Check) http.HandlerFunc {
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
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					res.Checks[c.Name] = "ok"
				case c.Critical:
					res.Checks[c.Name] = "down: " + err.Error()
					ready = false
				default:
					res.Checks[c.Name] = "degraded: " + err.Error()
					if res.Status == "ok" {
						res.Status = "degraded"
					}
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
