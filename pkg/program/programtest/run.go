package programtest

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/program"
)

// Listening is an app of an internal/app package: New has opened its
// listener, whose address Addr reports.
type Listening interface {
	program.App
	Addr() string
}

// CheckRunsUntilCancelled runs app as cmd/<program> does and fails t unless
// its /readyz answers 200 with every one of checks "ok", and unless Run and
// Close end cleanly once the context is cancelled.
func CheckRunsUntilCancelled(t testing.TB, app Listening, checks ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- app.Run(ctx) }()

	resp, err := http.Get("http://" + app.Addr() + "/readyz")
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

	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Run = %v, want a clean shutdown", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
	if err := app.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}
