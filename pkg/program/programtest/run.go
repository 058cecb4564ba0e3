package programtest

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/program"
)

// Listening is an app of an internal/app package: New has opened its
// listeners, whose addresses Addr (the API) and AdminAddr (the probes and
// metrics) report.
type Listening interface {
	program.App
	Addr() string
	AdminAddr() string
}

// CheckRunsUntilCancelled runs app as cmd/<program> does and fails t unless
// /readyz on its admin listener answers 200 with every one of checks "ok",
// /metrics answers there, neither answers 200 on the public listener, and
// Run and Close end cleanly once the context is cancelled.
func CheckRunsUntilCancelled(t testing.TB, app Listening, checks ...string) {
	t.Helper()
	stop := RunInBackground(t, app, 30*time.Second)

	for _, path := range []string{"/readyz", "/metrics"} {
		if status := get(t, "http://"+app.Addr()+path); status == http.StatusOK {
			t.Errorf("the public listener answers %s: probes and metrics belong on the admin listener", path)
		}
	}
	if status := get(t, "http://"+app.AdminAddr()+"/metrics"); status != http.StatusOK {
		t.Errorf("/metrics on the admin listener = %d, want 200", status)
	}
	resp, err := http.Get("http://" + app.AdminAddr() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	var ready struct {
		Checks map[string]string `json:"checks"`
	}
	err = json.NewDecoder(resp.Body).Decode(&ready)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz = %d %+v (%v), want 200", resp.StatusCode, ready, err)
	}
	for _, name := range checks {
		if ready.Checks[name] != "ok" {
			t.Errorf("/readyz check %s = %q, want ok (all: %v)", name, ready.Checks[name], ready.Checks)
		}
	}

	stop()
	if err := app.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

// RunInBackground runs app as cmd/<program> does until the stop it returns
// is called or t ends: stop cancels Run's context and fails t unless Run
// then returns nil within the given time. Calling stop again does nothing.
func RunInBackground(t testing.TB, app program.App, within time.Duration) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- app.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-served:
				if err != nil {
					t.Errorf("Run = %v, want a clean shutdown", err)
				}
			case <-time.After(within):
				t.Fatalf("Run did not return within %s after its context was cancelled", within)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// get GETs url and returns its status.
func get(t testing.TB, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
