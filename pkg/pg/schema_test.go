package pg_test

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pressly/goose/v3"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/server"
)

// readyz answers one /readyz request with the schema probe as its only
// check; the body carries a cause code, the probe's own error the detail.
func readyz(probe func(context.Context) error) (code int, body, detail string) {
	rec := httptest.NewRecorder()
	server.Readyz(slog.New(slog.DiscardHandler), server.Check{Name: "schema", Critical: true, Probe: probe})(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if err := probe(context.Background()); err != nil {
		detail = err.Error()
	}
	return rec.Code, rec.Body.String(), detail
}

func TestSchemaCurrentFailsReadinessUntilEveryMigrationTheBinaryEmbedsIsApplied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openSQL(t, pgtest.NewURL(t, emptyMigrations))
	sets := []pg.Set{{FS: migrations(t)}, extraSet(t)}
	probe, err := pg.SchemaCurrent(db, sets...)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a database nobody migrated is not ready, and the probe creates no table", func(t *testing.T) {
		code, body, detail := readyz(probe)
		if code != http.StatusServiceUnavailable || !strings.Contains(body, `"schema":"down: not_migrated"`) || !strings.Contains(detail, "goose_db_version does not exist") {
			t.Fatalf("readyz = %d %s (%s), want 503 not_migrated, the missing version table in the detail", code, body, detail)
		}
		var exists bool
		if err := db.QueryRow(`SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&exists); err != nil || exists {
			t.Fatalf("the probe created the version table (exists %v, err %v)", exists, err)
		}
	})

	older, err := goose.NewProvider(goose.DialectPostgres, db, migrations(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := older.UpTo(ctx, 1); err != nil {
		t.Fatalf("migrate to version 1: %v", err)
	}
	t.Run("a schema one version behind the binary is not ready", func(t *testing.T) {
		code, body, detail := readyz(probe)
		if code != http.StatusServiceUnavailable || !strings.Contains(body, `"schema":"down: schema_behind"`) || !strings.Contains(detail, "goose_db_version is at version 1, this binary needs 2") {
			t.Fatalf("readyz = %d %s (%s), want 503 schema_behind, versions 1 and 2 in the detail", code, body, detail)
		}
	})

	if err := pg.MigrateSets(ctx, db, nil, sets[:1]...); err != nil {
		t.Fatal(err)
	}
	t.Run("a current program set with a shared set not yet applied is not ready", func(t *testing.T) {
		if code, body, detail := readyz(probe); code != http.StatusServiceUnavailable || (!strings.Contains(body, "schema_behind") && !strings.Contains(body, "not_migrated")) || !strings.Contains(detail, "goose_extra") {
			t.Fatalf("readyz = %d %s (%s), want 503 with goose_extra in the detail", code, body, detail)
		}
	})

	if err := pg.MigrateSets(ctx, db, nil, sets...); err != nil {
		t.Fatal(err)
	}
	t.Run("once migrate ran up, the program is ready", func(t *testing.T) {
		if code, body, _ := readyz(probe); code != http.StatusOK {
			t.Fatalf("readyz = %d %s, want 200", code, body)
		}
	})

	t.Run("the previous binary stays ready on the newer schema", func(t *testing.T) {
		first, err := fs.ReadFile(migrations(t), "00001_things.sql")
		if err != nil {
			t.Fatal(err)
		}
		previous, err := pg.SchemaCurrent(db, pg.Set{FS: fstest.MapFS{"00001_things.sql": {Data: first}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := previous(ctx); err != nil {
			t.Fatalf("probe of a binary embedding only version 1: %v", err)
		}
	})
}

func TestSchemaCurrentRefusesASetThatCannotNameATable(t *testing.T) {
	t.Parallel()
	db := openSQL(t, pgtest.NewURL(t, emptyMigrations))
	if _, err := pg.SchemaCurrent(db, pg.Set{Name: "Bad-Name", FS: migrations(t)}); err == nil {
		t.Fatal("SchemaCurrent accepted a set name that is not an identifier")
	}
}

// ownedSet is a program's set of one migration that records owner in
// pg.OwnerTable, as jobs' and search-admin's do.
func ownedSet(owner string) pg.Set {
	return pg.Set{Owner: owner, FS: fstest.MapFS{"00001_" + owner + ".sql": {Data: []byte(`-- +goose Up
CREATE TABLE ` + owner + `_rows (id int);
CREATE TABLE IF NOT EXISTS schema_owner (service text PRIMARY KEY);
INSERT INTO schema_owner (service) VALUES ('` + owner + `') ON CONFLICT DO NOTHING;
`)}}}
}

// A set that names its owner and never records it would leave the
// database unprotected without a word: migrate says what to add.
func TestMigrateFailsWhenASetNeverRecordsTheOwnerItNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openSQL(t, pgtest.NewURL(t, emptyMigrations))
	forgetful := pg.Set{Owner: "gamma", FS: fstest.MapFS{"00001_gamma.sql": {Data: []byte("-- +goose Up\nCREATE TABLE gamma_rows (id int);\n")}}}
	err := pg.MigrateSets(ctx, db, nil, forgetful)
	if err == nil || !strings.Contains(err.Error(), `names the owner "gamma", which none of its migrations records`) ||
		!strings.Contains(err.Error(), "INSERT INTO schema_owner (service) VALUES ('gamma')") {
		t.Errorf("migrate of a set that never records its owner: %v", err)
	}
	if err := pg.MigrateSets(ctx, openSQL(t, pgtest.NewURL(t, emptyMigrations)), nil, ownedSet("epsilon")); err != nil {
		t.Errorf("a set that records its owner: %v", err)
	}
}

// Two programs keep their versions in goose_db_version: one pointed at the
// other's database took the other's versions for its own, migrate said it
// was up to date, readiness said the schema was current, and every request
// was a 500.
func TestAProgramRefusesTheDatabaseOfAnother(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openSQL(t, pgtest.NewURL(t, emptyMigrations))
	if err := pg.MigrateSets(ctx, db, nil, ownedSet("alpha")); err != nil {
		t.Fatal(err)
	}
	err := pg.MigrateSets(ctx, db, nil, ownedSet("beta"))
	if err == nil || !strings.Contains(err.Error(), "the schema of alpha, not of beta") {
		t.Errorf("migrate of beta on alpha's database: %v", err)
	}
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM pg_tables WHERE tablename = 'beta_rows'`).Scan(&tables); err != nil || tables != 0 {
		t.Errorf("beta's migration ran on alpha's database (%d tables, %v)", tables, err)
	}
	probe, err := pg.SchemaCurrent(db, ownedSet("beta"))
	if err != nil {
		t.Fatal(err)
	}
	if code, body, _ := readyz(probe); code != http.StatusServiceUnavailable || !strings.Contains(body, `"schema":"down: foreign_schema"`) {
		t.Errorf("beta's readiness on alpha's database = %d %s", code, body)
	}
	own, err := pg.SchemaCurrent(db, ownedSet("alpha"))
	if err != nil {
		t.Fatal(err)
	}
	if code, body, _ := readyz(own); code != http.StatusOK {
		t.Errorf("alpha's readiness on its own database = %d %s", code, body)
	}
	if err := pg.MigrateSets(ctx, db, nil, ownedSet("alpha")); err != nil {
		t.Errorf("alpha's migrate again: %v", err)
	}
}
