package http_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/server"
	jobshttp "github.com/municipal-apis/platform/services/jobs/internal/http"
	"github.com/municipal-apis/platform/services/jobs/internal/postgres"
	"github.com/municipal-apis/platform/services/jobs/migrations"
)

func TestATokenOfARemovedSigningKeyIsRefusedWithinOneRefresh(t *testing.T) {
	t.Parallel()
	idp := devidptest.Start(t)
	cfg := idp.VerifierConfig()
	cfg.RefreshInterval, cfg.RefetchCooldown = 200*time.Millisecond, 50*time.Millisecond
	verifier, err := auth.NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); verifier.Run(ctx) }() // as the program runs it beside its server
	t.Cleanup(func() { cancel(); <-done })
	db := pgtest.NewDB(t, migrations.FS, idempotency.MigrationSet)
	keys, err := idempotency.New(db, idempotency.Config{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	h := jobshttp.New(jobshttp.Options{Store: postgres.New(db), Auth: verifier, Idempotency: keys,
		Logger: slog.New(slog.DiscardHandler), Metrics: server.NewMetrics(), MaxBodyBytes: maxBody})
	get := func(token string) int {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/escolaridades", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}

	old := idp.Token(t, admin)
	if code := get(old); code != http.StatusOK {
		t.Fatalf("before the rotation: %d", code)
	}
	oldKid := idp.KeyID()
	idp.RotateKey(t)
	idp.RemoveKey(t, oldKid)
	deadline := time.Now().Add(10 * time.Second)
	for get(old) != http.StatusUnauthorized {
		if time.Now().After(deadline) {
			t.Fatal("the service still accepts a token whose signing key the provider removed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code := get(idp.Token(t, admin)); code != http.StatusOK {
		t.Fatalf("a token of the new key: %d", code)
	}
}
