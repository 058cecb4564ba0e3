package pg_test

import (
	"context"
	"database/sql"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
)

func TestMigrateCommandCreatesTheDatabaseOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(pgtest.NewURL(t, emptyMigrations))
	if err != nil {
		t.Fatal(err)
	}
	u.Path += "_command"
	cfg := pg.Config{URL: u.String(), MaxOpenConns: 2, MaxIdleConns: 1}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", pgtest.AdminURL())
		if err == nil {
			_, _ = db.Exec(`DROP DATABASE IF EXISTS "` + dbName(cfg.URL) + `" WITH (FORCE)`)
			db.Close()
		}
	})
	ctx, log := context.Background(), slog.New(slog.DiscardHandler)
	sets := []pg.Set{{FS: migrations(t)}}
	if err := pg.MigrateCommand(ctx, cfg, log, nil, sets...); err == nil {
		t.Fatal("migrate without -create-database succeeded on a database that does not exist")
	}
	if err := pg.MigrateCommand(ctx, cfg, log, []string{"-create-database"}, sets...); err != nil {
		t.Fatal(err)
	}
	if err := pg.MigrateCommand(ctx, cfg, log, []string{"-bogus"}, sets...); err == nil {
		t.Error("an unknown flag was accepted")
	}
	db, err := sql.Open("pgx", cfg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO things (qty, note) VALUES (1, 'x')`); err != nil {
		t.Fatalf("the migrations were not applied: %v", err)
	}
}

func TestMigrateCommandWaitsForAServerThatIsNotUpYet(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewURL(t, emptyMigrations)
	proxy := pgtest.NewProxy(t, dsn)
	proxy.Refuse(true)
	time.AfterFunc(time.Second, func() { proxy.Refuse(false) })
	logs := &logtest.Buffer{}
	cfg := pg.Config{URL: proxy.URL(), MaxOpenConns: 2, MaxIdleConns: 1, ConnectWait: time.Minute}
	log := slog.New(slog.NewTextHandler(logs, nil))
	if err := pg.MigrateCommand(context.Background(), cfg, log, []string{"-create-database"}, pg.Set{FS: migrations(t)}); err != nil {
		t.Fatalf("migrate gave up on a server that came up after a second: %v", err)
	}
	if n := strings.Count(logs.String(), "database not reachable yet"); n == 0 {
		t.Fatalf("no try was refused, so nothing was waited for; log:\n%s", logs)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO things (qty, note) VALUES (1, 'x')`); err != nil {
		t.Fatalf("the migrations were not applied: %v", err)
	}
}
