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
	"github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
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
		Checks map[string]string `json:"checks"`
	}
	err = json.NewDecoder(resp.Body).Decode(&ready)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || ready.Checks["postgres"] != "ok" || ready.Checks["schema"] != "ok" || len(ready.Checks) != 3 {
		t.Errorf("/readyz = %d %+v (%v), want 200 with postgres and schema ok and the identity provider checked", resp.StatusCode, ready, err)
	}

	cancel()
	if err := <-served; err != nil {
		t.Errorf("Run = %v, want a clean shutdown of the server and every background loop", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

func TestNewRefusesAnUnknownEmbeddingProvider(t *testing.T) {
	t.Parallel()
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"HTTP_ADDR": "127.0.0.1:0", "EMBEDDING_PROVIDER": "crystal-ball",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if a, err := app.New(context.Background(), cfg); err == nil {
		_ = a.Close()
		t.Fatal("New accepted an unknown embedding provider")
	}
}
