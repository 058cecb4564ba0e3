package pg_test

import (
	"context"
	"database/sql"
	"embed"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
)

//go:embed testdata/extra/*.sql
var extraFiles embed.FS

func extraSet(t testing.TB) pg.Set {
	sub, err := fs.Sub(extraFiles, "testdata/extra")
	if err != nil {
		t.Fatal(err)
	}
	return pg.Set{Name: "extra", FS: sub}
}

func openSQL(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// appliedVersions counts the applied migrations recorded in table.
func appliedVersions(t testing.TB, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM ` + table + ` WHERE version_id > 0 AND is_applied`).Scan(&n); err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	return n
}

func TestMigrateSetsKeepsOneVersionTablePerSetAcrossConcurrentRunners(t *testing.T) {
	t.Parallel()
	db := openSQL(t, pgtest.NewURL(t, emptyMigrations))
	sets := []pg.Set{{FS: migrations(t)}, extraSet(t)}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = pg.MigrateSets(context.Background(), db, nil, sets...) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("runner %d: %v", i, err)
		}
	}
	if err := pg.MigrateSets(context.Background(), db, nil, sets...); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if n := appliedVersions(t, db, pg.DefaultVersionTable); n != 2 {
		t.Errorf("program set: %d migrations applied, want 2", n)
	}
	if n := appliedVersions(t, db, "goose_extra"); n != 1 {
		t.Errorf("extra set: %d migrations applied, want 1", n)
	}
	if _, err := db.Exec(`INSERT INTO labels (text) VALUES ('x'); INSERT INTO things (qty, note) VALUES (1, 'x')`); err != nil {
		t.Fatalf("schema incomplete: %v", err)
	}
}

func TestMigrateSetsRefusesSetsThatCannotNameATable(t *testing.T) {
	t.Parallel()
	db := openSQL(t, pgtest.NewURL(t, emptyMigrations))
	tests := []struct {
		name string
		sets []pg.Set
		want string
	}{
		{"a name with a quote is refused", []pg.Set{{Name: `x"; DROP TABLE things; --`, FS: migrations(t)}}, "must be lower-case"},
		{"an upper-case name is refused", []pg.Set{{Name: "Extra", FS: migrations(t)}}, "must be lower-case"},
		{"a name too long for a table is refused", []pg.Set{{Name: strings.Repeat("a", 58), FS: migrations(t)}}, "must be lower-case"},
		{"a set without files is refused", []pg.Set{{Name: "nothing"}}, "has no files"},
		{"the same set twice is refused", []pg.Set{extraSet(t), extraSet(t)}, "given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := pg.MigrateSets(context.Background(), db, nil, tt.sets...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one saying %q", err, tt.want)
			}
		})
	}
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("%d tables created by refused sets, want none", tables)
	}
}

func TestVersionTableNamesTheSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		set  pg.Set
		want string
	}{
		{"the unnamed set keeps goose's default table", pg.Set{}, "goose_db_version"},
		{"a named set gets its own table", pg.Set{Name: "idempotency"}, "goose_idempotency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.set.VersionTable(); got != tt.want {
				t.Fatalf("VersionTable() = %q, want %q", got, tt.want)
			}
		})
	}
}
