package pg_test

import (
	"context"
	"database/sql"
	"embed"
	"io/fs"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/problem"
)

//go:embed testdata/migrations/*.sql
var migrationFiles embed.FS

func migrations(t testing.TB) fs.FS {
	sub, err := fs.Sub(migrationFiles, "testdata/migrations")
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// emptyMigrations yields a database with nothing applied, to run Migrate on.
var emptyMigrations = fs.FS(embed.FS{})

func TestMigrateIsIdempotentAndSerializedAcrossConcurrentRunners(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewURL(t, emptyMigrations)
	ctx := context.Background()

	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := sql.Open("pgx", dsn)
			if err != nil {
				errs[i] = err
				return
			}
			defer db.Close()
			errs[i] = pg.Migrate(ctx, db, migrations(t), nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("runner %d: %v", i, err)
		}
	}

	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := pg.Migrate(ctx, db, migrations(t), nil); err != nil {
		t.Fatalf("second run: %v", err)
	}
	var applied int
	if err := db.QueryRow(`SELECT count(*) FROM goose_db_version WHERE version_id > 0 AND is_applied`).Scan(&applied); err != nil {
		t.Fatal(err)
	}
	if applied != 2 {
		t.Fatalf("applied migrations = %d, want 2 (each exactly once)", applied)
	}
	if _, err := db.Exec(`INSERT INTO things (qty, note) VALUES (1, 'x')`); err != nil {
		t.Fatalf("schema incomplete: %v", err)
	}
}

func TestMapErrorTranslatesPostgresErrors(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t, migrations(t))
	if err := db.Exec(`INSERT INTO owners (nome) VALUES ('Secretaria')`).Error; err != nil {
		t.Fatal(err)
	}
	fields := pg.Fields{"owners_nome_lower_key": "nome", "things_owner_id_fkey": "owner_id", "things_qty_check": "qty"}
	tests := []struct {
		name  string
		sql   string
		code  problem.Code
		field string
	}{
		{"a case-insensitive duplicate is a conflict", `INSERT INTO owners (nome) VALUES ('SECRETARIA')`, problem.ECONFLICT, "nome"},
		{"a dangling reference is invalid on its field", `INSERT INTO things (owner_id, qty) VALUES (999, 1)`, problem.EINVALID, "owner_id"},
		{"a missing required column is invalid", `INSERT INTO things (qty) VALUES (NULL)`, problem.EINVALID, "qty"},
		{"a check violation is invalid on its field", `INSERT INTO things (qty) VALUES (-1)`, problem.EINVALID, "qty"},
		{"a syntax error is internal", `INSERT INTO nowhere VALUES (1)`, problem.EINTERNAL, ""},
		// A standby, or a database set read-only: the writes may work again
		// (a failover ends), and the pod was answering 500s while ready.
		{"a write the database takes no writes for is unavailable", `SET LOCAL default_transaction_read_only = on; SET TRANSACTION READ ONLY; INSERT INTO owners (nome) VALUES ('Outra')`, problem.EUNAVAILABLE, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := pg.MapError(db.Exec(tt.sql).Error, fields)
			if problem.CodeOf(err) != tt.code {
				t.Fatalf("code = %v, want %v (%v)", problem.CodeOf(err), tt.code, err)
			}
			if tt.field != "" {
				pe := err.(*problem.Error)
				if len(pe.Fields) != 1 || pe.Fields[0].Field != tt.field {
					t.Fatalf("fields = %+v, want %s", pe.Fields, tt.field)
				}
			}
		})
	}
	if pg.MapError(nil, nil) != nil {
		t.Fatal("MapError(nil) must be nil")
	}
}

func TestMapErrorReportsAnUnreachableServerAsUnavailable(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("pgx", "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = pg.MapError(db.PingContext(context.Background()), nil)
	if problem.CodeOf(err) != problem.EUNAVAILABLE {
		t.Fatalf("code = %v (%v), want unavailable", problem.CodeOf(err), err)
	}
}

func TestEnsureDatabaseCreatesOnceAndToleratesRaces(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(pgtest.NewURL(t, emptyMigrations))
	if err != nil {
		t.Fatal(err)
	}
	u.Path += "_ensured"
	dsn := u.String()
	t.Cleanup(func() {
		db, err := sql.Open("pgx", pgtest.AdminURL())
		if err == nil {
			_, _ = db.Exec(`DROP DATABASE IF EXISTS "` + dbName(dsn) + `" WITH (FORCE)`)
			db.Close()
		}
	})
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = pg.EnsureDatabase(context.Background(), dsn) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatalf("database not created: %v", err)
	}
}

func dbName(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// The Kubernetes manifests give DATABASE_URL without credentials and the role
// as PGUSER/PGPASSWORD from a Secret, so owner and runtime roles share a URL.
func TestOpenTakesTheRoleFromPGUSERWhenTheURLNamesNone(t *testing.T) {
	withUser, err := url.Parse(pgtest.NewURL(t, emptyMigrations))
	if err != nil {
		t.Fatal(err)
	}
	role := withUser.User.Username()
	bare := *withUser
	bare.User = nil
	cfg := pg.Config{URL: bare.String(), MaxOpenConns: 1, MaxIdleConns: 1}

	t.Setenv("PGUSER", "no_such_role_for_pg_test")
	if db, err := pg.Open(context.Background(), cfg, nil); err == nil {
		pg.Close(db)
		t.Fatal("Open connected although PGUSER names no role")
	} else if !strings.Contains(err.Error(), "no_such_role_for_pg_test") {
		t.Fatalf("Open error %v does not come from the PGUSER role", err)
	}

	t.Setenv("PGUSER", role)
	db, err := pg.Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatalf("Open with PGUSER=%s: %v", role, err)
	}
	defer pg.Close(db)
	var current string
	if err := db.Raw(`SELECT current_user`).Scan(&current).Error; err != nil || current != role {
		t.Fatalf("connected as %q (%v), want %q", current, err, role)
	}
}

// TestOpenLogsAFailedConnectAsText: the line logged while Open waits for
// a server carries the reason as text, not a JSON encoding failure of the
// pgconn error (a database that does not exist is not waited for: Open
// returns it, and the program prints it as it exits).
func TestOpenLogsAFailedConnectAsText(t *testing.T) {
	t.Parallel()
	var buf logtest.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	proxy := pgtest.NewProxy(t, pgtest.AdminURL())
	proxy.Refuse(true)
	if db, err := pg.Open(context.Background(), pg.Config{URL: proxy.URL(), MaxOpenConns: 1, ConnectWait: 300 * time.Millisecond}, log); err == nil {
		_ = pg.Close(db)
		t.Fatal("Open succeeded on a server that refuses every connection")
	}
	out := buf.String()
	if strings.Contains(out, "unsupported type") || !strings.Contains(out, "failed to connect") {
		t.Errorf("the failed connect was logged as %s; want the reason as text", out)
	}
}

// The SQL logged for a slow statement holds placeholders, never the
// request's values, and a constraint a client's values broke (a duplicate,
// answered as a 409) is not logged as an error of the service. A reviewer
// found bodies, filters and stored answers written into logged SQL, and an
// ERROR line for every duplicate.
func TestTheLogNeverHoldsAStatementsValues(t *testing.T) {
	t.Parallel()
	var buf logtest.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	db, err := pg.Open(context.Background(), pg.Config{URL: pgtest.NewURL(t, emptyMigrations), MaxOpenConns: 2, SlowQuery: time.Nanosecond}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close(db) })
	if err := db.Exec(`CREATE TABLE things (name text PRIMARY KEY)`).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(`INSERT INTO things (name) VALUES (?)`, "SECRET-VALUE").Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(`INSERT INTO things (name) VALUES (?)`, "SECRET-VALUE").Error; !pg.IsCode(err, pg.UniqueViolation) {
		t.Fatalf("the duplicate: %v, want a unique violation", err)
	}
	// Scan logs through a recorder of GORM's own (a re-check found the
	// values of the idempotency keys' lookups in the log).
	var names []string
	if err := db.Raw(`SELECT name FROM things WHERE name = ?`, "SECRET-LOOKUP").Scan(&names).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Table("things").Select("name").Where("name = ?", "SECRET-WHERE").Scan(&names).Error; err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{`INSERT INTO things (name) VALUES ($1`, `SELECT name FROM things WHERE name = $1`, `WHERE name = $1`} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "SECRET") {
		t.Errorf("the log holds a statement's value:\n%s", out)
	}
	if strings.Contains(out, `"level":"ERROR"`) {
		t.Errorf("a duplicate was logged as an error:\n%s", out)
	}
}
