package app_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/services/jobs/internal/app"
	"github.com/municipal-apis/platform/services/jobs/migrations"
)

func TestRunServesOnItsAddressUntilCancelled(t *testing.T) {
	t.Parallel()
	idp := devidptest.Start(t)
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"HTTP_ADDR":       "127.0.0.1:0",
		"DATABASE_URL":    pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet),
		"OIDC_ISSUER_URL": idp.Issuer(),
	}))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	a, err := app.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Run(ctx) }()

	resp, err := http.Get("http://" + a.Addr() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	var ready struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
	}
	err = json.NewDecoder(resp.Body).Decode(&ready)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || ready.Checks["postgres"] != "ok" || ready.Checks["identity_provider"] != "ok" {
		t.Errorf("/readyz = %d %+v (%v), want 200 with postgres and identity_provider ok", resp.StatusCode, ready, err)
	}

	cancel()
	if err := <-served; err != nil {
		t.Errorf("Run = %v, want a clean shutdown", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

func TestNewFailsWithoutItsDatabase(t *testing.T) {
	t.Parallel()
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"HTTP_ADDR":    "127.0.0.1:0",
		"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/no_such_database_for_jobs?sslmode=disable",
	}))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	if a, err := app.New(context.Background(), cfg); err == nil {
		_ = a.Close()
		t.Fatal("New succeeded on a database that does not exist")
	}
}
