package app_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/program/programtest"
	"github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

func TestRunServesOnItsAddressUntilCancelled(t *testing.T) {
	t.Parallel()
	idp := devidptest.Start(t)
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"HTTP_ADDR":       "127.0.0.1:0",
		"ADMIN_ADDR":      "127.0.0.1:0",
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
	programtest.CheckRunsUntilCancelled(t, a, "postgres", "schema", "oidc")
}

func TestNewRefusesAnUnknownEmbeddingProvider(t *testing.T) {
	t.Parallel()
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"HTTP_ADDR":  "127.0.0.1:0",
		"ADMIN_ADDR": "127.0.0.1:0", "EMBEDDING_PROVIDER": "crystal-ball",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if a, err := app.New(context.Background(), cfg); err == nil {
		_ = a.Close()
		t.Fatal("New accepted an unknown embedding provider")
	}
}
