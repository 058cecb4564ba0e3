package app_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/program/programtest"
	"github.com/municipal-apis/platform/services/jobs/internal/app"
	"github.com/municipal-apis/platform/services/jobs/migrations"
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

func TestNewFailsWithoutItsDatabase(t *testing.T) {
	t.Parallel()
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"HTTP_ADDR":    "127.0.0.1:0",
		"ADMIN_ADDR":   "127.0.0.1:0",
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

func TestNotReadyUntilMigrateRan(t *testing.T) {
	t.Parallel()
	idp := devidptest.Start(t)
	dsn := pgtest.NewURL(t, fstest.MapFS{})
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"HTTP_ADDR":  "127.0.0.1:0",
		"ADMIN_ADDR": "127.0.0.1:0", "DATABASE_URL": dsn, "OIDC_ISSUER_URL": idp.Issuer(),
	}))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	a, err := app.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	readyz := func() (int, string) {
		rec := httptest.NewRecorder()
		a.AdminHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := readyz(); code != http.StatusServiceUnavailable || !strings.Contains(body, `"schema":"down`) {
		t.Fatalf("/readyz on an unmigrated database = %d %s, want 503 with the schema down", code, body)
	}
	if err := pg.MigrateCommand(context.Background(), cfg.DB, cfg.Logger, nil, app.MigrationSets...); err != nil {
		t.Fatal(err)
	}
	if code, body := readyz(); code != http.StatusOK {
		t.Fatalf("/readyz after migrate = %d %s, want 200", code, body)
	}
}
