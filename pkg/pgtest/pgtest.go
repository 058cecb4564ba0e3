// Package pgtest gives each test its own PostgreSQL database, cloned from a
// template that is migrated once, so database tests are isolated and can run
// in parallel.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"net/url"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/pg"
)

// EnvAdminURL names the variable holding a URL of the test server's
// maintenance database; the default is the local trust-auth server.
const EnvAdminURL = "PGTEST_ADMIN_URL"

const defaultAdminURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// AdminURL returns the maintenance-database URL tests connect to.
func AdminURL() string {
	if u := os.Getenv(EnvAdminURL); u != "" {
		return u
	}
	return defaultAdminURL
}

var (
	templatesMu sync.Mutex
	templates   = map[string]string{} // migration fingerprint → template database
)

// NewURL returns the URL of a fresh database holding every migration of
// migrations (the program's own set) and then of each extra set, such as a
// shared component's, dropped when tb ends. It fails the test (never skips)
// when Postgres is unreachable.
func NewURL(tb testing.TB, migrations fs.FS, extra ...pg.Set) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tpl, err := template(ctx, append([]pg.Set{{FS: migrations}}, extra...))
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	name := "test_" + randomHex(8)
	if err := admin(ctx, func(conn *pgx.Conn) error {
		return cloneWithRetry(ctx, conn, name, tpl)
	}); err != nil {
		tb.Fatalf("pgtest: clone %s: %v", tpl, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := admin(ctx, func(conn *pgx.Conn) error {
			_, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
			return err
		}); err != nil {
			tb.Errorf("pgtest: drop %s: %v", name, err)
		}
	})
	return databaseURL(name)
}

// NewDB is NewURL opened with pg.Open; the pool is closed when tb ends.
func NewDB(tb testing.TB, migrations fs.FS, extra ...pg.Set) *gorm.DB {
	tb.Helper()
	dsn := NewURL(tb, migrations, extra...)
	db, err := pg.Open(context.Background(), pg.Config{URL: dsn, MaxOpenConns: 10, MaxIdleConns: 5, ConnMaxLifetime: time.Minute, ConnMaxIdleTime: time.Minute}, nil)
	if err != nil {
		tb.Fatalf("pgtest: open %s: %v", dsn, err)
	}
	tb.Cleanup(func() { _ = pg.Close(db) })
	return db
}

// template returns the name of a database migrated with sets, creating it
// once per fingerprint. An advisory lock makes concurrent test binaries (go
// test runs packages in parallel) wait for one builder.
func template(ctx context.Context, sets []pg.Set) (string, error) {
	for _, s := range sets {
		if s.FS == nil {
			return "", fmt.Errorf("migration set %q has no FS", s.Name)
		}
	}
	fp, err := fingerprint(sets)
	if err != nil {
		return "", err
	}
	templatesMu.Lock()
	defer templatesMu.Unlock()
	if name, ok := templates[fp]; ok {
		return name, nil
	}
	name := "tpl_" + fp
	err = admin(ctx, func(conn *pgx.Conn) error {
		h := fnv.New64a()
		h.Write([]byte(name))
		key := int64(h.Sum64())
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
			return err
		}
		defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", key) //nolint:errcheck
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return nil
		}
		building := name + "_building"
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{building}.Sanitize()+" WITH (FORCE)"); err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{building}.Sanitize()); err != nil {
			return err
		}
		if err := migrate(ctx, databaseURL(building), sets); err != nil {
			return fmt.Errorf("migrate template: %w", err)
		}
		_, err := conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{building}.Sanitize()+" RENAME TO "+pgx.Identifier{name}.Sanitize())
		return err
	})
	if err != nil {
		return "", err
	}
	templates[fp] = name
	return name, nil
}

// migrate applies every set that holds SQL files; a set without any (an
// empty FS, for tests of migrating itself) leaves the database untouched.
func migrate(ctx context.Context, dsn string, sets []pg.Set) error {
	var nonEmpty []pg.Set
	for _, s := range sets {
		if files, _ := fs.Glob(s.FS, "*.sql"); len(files) > 0 {
			nonEmpty = append(nonEmpty, s)
		}
	}
	if len(nonEmpty) == 0 {
		return nil
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	return pg.MigrateSets(ctx, db, nil, nonEmpty...)
}

// cloneWithRetry copies the template; Postgres refuses while another session
// is briefly connected to it, so a few retries absorb concurrent clones.
func cloneWithRetry(ctx context.Context, conn *pgx.Conn, name, tpl string) error {
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE "+pgx.Identifier{tpl}.Sanitize())
		if err == nil || !pg.IsCode(err, "55006") {
			return err
		}
		time.Sleep(time.Duration(50*(attempt+1)) * time.Millisecond)
	}
	return err
}

func admin(ctx context.Context, fn func(*pgx.Conn) error) error {
	conn, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return fmt.Errorf("connect to %s: %w\n(start Postgres with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start; or set %s)",
			redact(AdminURL()), err, EnvAdminURL)
	}
	defer conn.Close(context.Background())
	return fn(conn)
}

// databaseURL is the admin URL pointed at database name.
func databaseURL(name string) string {
	u, err := url.Parse(AdminURL())
	if err != nil {
		panic(fmt.Sprintf("pgtest: %s is not a URL: %v", EnvAdminURL, err))
	}
	u.Path = "/" + name
	return u.String()
}

// fingerprint hashes the order, names and every file of sets, so a changed
// migration or set list gets a new template.
func fingerprint(sets []pg.Set) (string, error) {
	h := sha256.New()
	for _, s := range sets {
		fmt.Fprintf(h, "set\x00%s\x00", s.VersionTable())
		if err := hashFiles(h, s.FS); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// hashFiles writes the name, size and content of every file of fsys to h.
func hashFiles(h io.Writer, fsys fs.FS) error {
	var names []string
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, path)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("read migrations: %w", err)
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		_, _ = h.Write(b)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the admin URL"
	}
	return u.Redacted()
}
