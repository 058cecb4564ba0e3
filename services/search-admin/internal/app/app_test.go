package app_test

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/polltest"
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

// A replica started on a database that migrate has not reached yet (its pod
// beside the migration, or ahead of it) waits, not ready, and serves once
// migrate has run, as the jobs service does. It exited instead, reading its
// vectors from tables that did not exist yet, and a Deployment whose pods
// start before the migration would have crash-looped.
func TestNewWaitsNotReadyOnADatabaseNotMigratedYet(t *testing.T) {
	t.Parallel()
	idp := devidptest.Start(t)
	dsn := pgtest.NewURL(t, fstest.MapFS{}) // an empty database
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"HTTP_ADDR":            "127.0.0.1:0",
		"ADMIN_ADDR":           "127.0.0.1:0",
		"DATABASE_URL":         dsn,
		"OIDC_ISSUER_URL":      idp.Issuer(),
		"SEARCH_INDEX_RECHECK": "100ms",
	}))
	if err != nil {
		t.Fatal(err)
	}
	var log logtest.Buffer
	cfg.Logger = slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelError}))
	a, err := app.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("New on a database not migrated yet: %v", err)
	}
	programtest.RunInBackground(t, a, 30*time.Second)
	readyz := func() (int, string) {
		resp, err := http.Get("http://" + a.AdminAddr() + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := readyz(); code != http.StatusServiceUnavailable || !strings.Contains(body, "not_migrated") {
		t.Fatalf("/readyz before migrate = %d %s, want 503 not_migrated", code, body)
	}
	// The background loops wait for the schema rather than poll tables
	// that do not exist yet, or that the migration below is altering (a
	// poll that locked in another order made it fail with a deadlock).
	// They poll as they start, so half a second shows them.
	time.Sleep(500 * time.Millisecond)
	if out := log.String(); out != "" {
		t.Fatalf("errors logged before migrate:\n%s", out)
	}

	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := pg.MigrateSets(context.Background(), db, slog.New(slog.DiscardHandler), app.MigrationSets...); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 10*time.Second, "ready after migrate, with the vector index loaded", func() bool {
		code, _ := readyz()
		return code == http.StatusOK && a.VectorIndex().Version() != ""
	})
}
