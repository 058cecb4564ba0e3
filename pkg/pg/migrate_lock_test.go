package pg_test

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/polltest"
)

// files makes a migration set of SQL files, by name.
func files(sql map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, text := range sql {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	return fsys
}

// waitForLockWaiter waits until a session of db waits for a lock while
// running a statement that holds prefix.
func waitForLockWaiter(t *testing.T, db *sql.DB, prefix string) {
	t.Helper()
	polltest.Until(t, 20*time.Second, "a session waits for a lock running "+prefix, func() bool {
		var n int
		err := db.QueryRow(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%' || $1 || '%'`, prefix).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
}

const createPlaces = "-- +goose Up\nCREATE TABLE places (id int PRIMARY KEY);\nINSERT INTO places VALUES (1);\n"

// addName is the set of createPlaces and a migration that alters its table.
var addName = pg.Set{FS: files(map[string]string{
	"00001_places.sql":   createPlaces,
	"00002_add_name.sql": "-- +goose Up\nALTER TABLE places ADD COLUMN name text;\n",
})}

// placesReadByALongTransaction migrates a new database to createPlaces and
// opens a transaction that has read the table, as a replica's long
// transaction would have: it holds a lock an ALTER of the table waits for.
func placesReadByALongTransaction(t *testing.T) (dsn string, db *sql.DB, holder *sql.Tx) {
	t.Helper()
	ctx := context.Background()
	dsn = pgtest.NewURL(t, emptyMigrations)
	db = openSQL(t, dsn)
	if err := pg.MigrateSets(ctx, db, nil, pg.Set{FS: files(map[string]string{"00001_places.sql": createPlaces})}); err != nil {
		t.Fatal(err)
	}
	holder, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Rollback() })
	if _, err := holder.Exec(`SELECT count(*) FROM places`); err != nil {
		t.Fatal(err)
	}
	return dsn, db, holder
}

// A rolling update runs migrate while the old replicas serve. A migration
// whose ALTER waits behind one long transaction must not queue every query of
// the serving replicas on that table behind it: it gives the attempt up after
// DATABASE_MIGRATE_LOCK_TIMEOUT, lets them through, and applies once the
// transaction ends.
func TestMigrateGivesWayToALongTransactionAndAppliesWhenItEnds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn, db, holder := placesReadByALongTransaction(t)
	logs := &logtest.Buffer{}
	cfg := pg.Config{URL: dsn, MaxOpenConns: 2, MaxIdleConns: 1, MigrateLockTimeout: 200 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		done <- pg.MigrateCommand(ctx, cfg, slog.New(slog.NewTextHandler(logs, nil)), nil, addName)
	}()
	waitForLockWaiter(t, db, "ALTER TABLE places")

	// Meanwhile the serving replicas' reads go through, each within its
	// statement timeout, across several of the migration's attempts.
	reader, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if _, err := reader.ExecContext(ctx, `SET statement_timeout = '3s'`); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		var n int
		if err := reader.QueryRowContext(ctx, `SELECT count(*) FROM places`).Scan(&n); err != nil {
			t.Fatalf("read %d while the migration waits for its lock: %v", i, err)
		}
		time.Sleep(150 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("the migration ended while the transaction it waits for is open: %v", err)
	default:
	}

	commitThenAwait(t, holder, done, logs)
	if _, err := db.Exec(`UPDATE places SET name = 'x'`); err != nil {
		t.Fatalf("the column of the second migration is missing: %v", err)
	}
	if n := appliedVersions(t, db, pg.DefaultVersionTable); n != 2 {
		t.Fatalf("applied versions = %d, want 2", n)
	}
	if !strings.Contains(logs.String(), "migration rolled back for its locks, trying again") ||
		!strings.Contains(logs.String(), "version=2") {
		t.Errorf("the log does not say the migration gave way:\n%s", logs)
	}
}

// commitThenAwait commits tx, which a migration waits for, then waits for
// the migration to end without error.
func commitThenAwait(t *testing.T, tx *sql.Tx, done <-chan error, logs *logtest.Buffer) {
	t.Helper()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("migrate: %v\n%s", err, logs)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the migration was not applied after the transaction it waited for ended\n%s", logs)
	}
}

// A migration that Postgres picks to break a deadlock with a replica's
// transaction (which takes the same tables in the other order) is rolled back
// whole; migrate runs it again instead of failing the pod's start.
func TestMigrateRunsAgainAMigrationChosenToBreakADeadlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.NewURL(t, emptyMigrations)
	db := openSQL(t, dsn)
	tables := "-- +goose Up\nCREATE TABLE a (id int);\nCREATE TABLE b (id int);\n"
	if err := pg.MigrateSets(ctx, db, nil, pg.Set{FS: files(map[string]string{"00001_ab.sql": tables})}); err != nil {
		t.Fatal(err)
	}

	// The replica holds b; it checks for deadlocks late, so the migration,
	// which waits first, is the one that finds the cycle and is rolled back.
	replica, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Rollback()
	for _, q := range []string{`SET LOCAL deadlock_timeout = '30s'`, `LOCK TABLE b IN ROW EXCLUSIVE MODE`} {
		if _, err := replica.Exec(q); err != nil {
			t.Fatal(err)
		}
	}

	set := pg.Set{FS: files(map[string]string{
		"00001_ab.sql":   tables,
		"00002_both.sql": "-- +goose Up\nLOCK TABLE a IN ACCESS EXCLUSIVE MODE;\nLOCK TABLE b IN ACCESS EXCLUSIVE MODE;\nALTER TABLE b ADD COLUMN note text;\n",
	})}
	logs := &logtest.Buffer{}
	done := make(chan error, 1)
	go func() { done <- pg.MigrateSets(ctx, db, slog.New(slog.NewTextHandler(logs, nil)), set) }()
	waitForLockWaiter(t, db, "LOCK TABLE b")
	// The replica now wants a, which the migration holds: a cycle.
	if _, err := replica.Exec(`LOCK TABLE a IN ROW EXCLUSIVE MODE`); err != nil {
		t.Fatalf("the replica lost the deadlock instead of the migration: %v", err)
	}
	commitThenAwait(t, replica, done, logs)
	if _, err := db.Exec(`INSERT INTO b (id, note) VALUES (1, 'x')`); err != nil {
		t.Fatalf("the column of the second migration is missing: %v", err)
	}
	if !strings.Contains(logs.String(), "deadlock detected") {
		t.Errorf("the log does not name the deadlock the migration lost:\n%s", logs)
	}
}

// A transaction that never ends: migrate gives up once its retries are
// spent, says why, and has applied nothing of the migration.
func TestMigrateGivesUpOnALockThatIsNeverFreedAndSaysWhy(t *testing.T) {
	pg.ShortenMigrateRetry(t, 2*time.Second) // not parallel: it changes a package setting
	dsn, db, _ := placesReadByALongTransaction(t)
	cfg := pg.Config{URL: dsn, MaxOpenConns: 2, MaxIdleConns: 1, MigrateLockTimeout: 100 * time.Millisecond}
	err := pg.MigrateCommand(context.Background(), cfg, slog.New(slog.DiscardHandler), nil, addName)
	if err == nil || !strings.Contains(err.Error(), "gave up after") || !strings.Contains(err.Error(), "lock timeout") {
		t.Fatalf("migrate = %v, want it to give up on the lock and say so", err)
	}
	if n := appliedVersions(t, db, pg.DefaultVersionTable); n != 1 {
		t.Fatalf("applied versions = %d, want 1", n)
	}
}
