package postgres_test

import (
	"context"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
	"github.com/municipal-apis/platform/services/jobs/internal/postgres"
	"github.com/municipal-apis/platform/services/jobs/migrations"
)

// firstMigration is the schema as it was before unique names were normalized.
func firstMigration(t *testing.T) fs.FS {
	t.Helper()
	raw, err := fs.ReadFile(migrations.FS, "00001_schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	return fstest.MapFS{"00001_schema.sql": {Data: raw}}
}

func TestTheMigrationNormalizesStoredUniqueNamesWithoutLosingRows(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t, firstMigration(t))
	stored := []struct {
		id         int64
		name, want string
	}{
		{1, "Médio", "Médio"},                     // already normal: keeps its name
		{2, "Me\u0301dio", "Me\u0301dio"},         // one name with row 1: left as it is
		{3, "Superior\u200b", "Superior"},         // a zero-width space dropped
		{4, "Te\u0301cnico", "Técnico"},           // composed
		{5, "\u200b", "\u200b"},                   // would become blank: left as it is
		{6, "Po\u0301s\u2060", "Pós"},             // two spellings of one new name: the lower id wins
		{7, "\ufeffPós", "\ufeffPós"},             // ...and the other keeps its name
		{8, "\u200b\tFundamental", "Fundamental"}, // white space exposed by the removal is trimmed
	}
	for _, table := range []struct{ name, column string }{{"escolaridades", "nivel"}, {"categorias", "nome"}} {
		for _, s := range stored {
			if err := db.Exec("INSERT INTO "+table.name+" (id, "+table.column+") VALUES (?, ?)", s.id, s.name).Error; err != nil {
				t.Fatalf("insert %q into %s: %v", s.name, table.name, err)
			}
		}
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Migrate(context.Background(), sqlDB, migrations.FS, nil); err != nil {
		t.Fatal(err)
	}
	for _, table := range []struct{ name, column string }{{"escolaridades", "nivel"}, {"categorias", "nome"}} {
		for _, s := range stored {
			var got string
			if err := db.Raw("SELECT "+table.column+" FROM "+table.name+" WHERE id = ?", s.id).Scan(&got).Error; err != nil {
				t.Fatal(err)
			}
			if got != s.want {
				t.Errorf("%s %d: %q became %q, want %q", table.name, s.id, s.name, got, s.want)
			}
		}
	}

	store := postgres.New(db)
	ctx := context.Background()
	for _, name := range []string{"Médio", "Pós", "Técnico\u200d", "superior"} {
		in := jobs.EscolaridadeInput{Nivel: name}
		var v problem.Violations
		in.Validate(&v)
		if _, err := store.Escolaridades().Create(ctx, &in); !problem.Is(err, problem.ECONFLICT) {
			t.Errorf("creating escolaridade %q after the migration: %v, want a conflict", name, err)
		}
	}
}

// migrationsUpTo is the schema as it was once migration last was applied.
func migrationsUpTo(t *testing.T, last string) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	files, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if name > last {
			continue
		}
		raw, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = &fstest.MapFile{Data: raw}
	}
	return out
}

// During the rolling update that runs a migration, the previous release's
// pods keep writing, and they do not put unique names in one form; neither
// does someone with psql. The database does it itself, whoever writes: the
// rows written after 00002 are put in that form by the next migration, and
// every later write is by a trigger, so the unique index compares one form.
func TestUniqueNamesWrittenByAnotherClientAreStoredInOneForm(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t, migrationsUpTo(t, "00002_unique_names.sql"))
	tables := []struct{ name, column string }{{"escolaridades", "nivel"}, {"categorias", "nome"}}
	insert := func(table struct{ name, column string }, id int64, name string) error {
		return db.Exec("INSERT INTO "+table.name+" (id, "+table.column+") VALUES (?, ?)", id, name).Error
	}
	read := func(table struct{ name, column string }, id int64) string {
		var got string
		if err := db.Raw("SELECT "+table.column+" FROM "+table.name+" WHERE id = ?", id).Scan(&got).Error; err != nil {
			t.Fatal(err)
		}
		return got
	}
	// Written by a pod of the release before 00002, after it ran.
	for _, table := range tables {
		for id, name := range map[int64]string{1: "Te\u0301cnico\u200b", 2: "Médio", 3: "Me\u0301dio", 4: "\u200b"} {
			if err := insert(table, id, name); err != nil {
				t.Fatalf("insert %q into %s: %v", name, table.name, err)
			}
		}
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Migrate(context.Background(), sqlDB, migrations.FS, nil); err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		for id, want := range map[int64]string{1: "Técnico", 2: "Médio", 3: "Me\u0301dio", 4: "\u200b"} {
			if got := read(table, id); got != want {
				t.Errorf("%s %d after the migration: %q, want %q", table.name, id, got, want)
			}
		}
		// Written after it, by anyone.
		if err := insert(table, 10, "\ufeff Superior\u2060\u00a0"); err != nil {
			t.Fatalf("insert into %s: %v", table.name, err)
		}
		if got := read(table, 10); got != "Superior" {
			t.Errorf("%s: inserted as %q, want %q", table.name, got, "Superior")
		}
		if err := db.Exec("UPDATE "+table.name+" SET "+table.column+" = ? WHERE id = 10", "Po\u0301s\u200d").Error; err != nil {
			t.Fatal(err)
		}
		if got := read(table, 10); got != "Pós" {
			t.Errorf("%s: updated to %q, want %q", table.name, got, "Pós")
		}
		if err := insert(table, 11, "PO\u0301S"); err == nil {
			t.Errorf("%s: a second spelling of Pós was stored beside it", table.name)
		}
	}
}

// The database's unique_name and the service's jobs.UniqueName are one rule
// written twice: they must agree on every name.
func TestTheDatabaseAndTheServiceNormalizeUniqueNamesAlike(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t, migrations.FS)
	names := []string{
		"Médio", "Me\u0301dio", "Superior\u200b", "\u200b", "", "\u200b\tFundamental", "\ufeffPós",
		"\u212b", "A\u030a", "a\u0323\u0302", "a\u0302\u0323", "\u1100\u1161\u11a8", "ﬁm", "Ｍédio",
		"e\u0301\u0301", "\u0301inicio", "Técnico 🚀", "ç\u0327", "Ω\u2126", "x\u200c\u200dy", "a\u2060b",
	}
	for _, r := range " \t\n\v\f\r\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\u180e\u200b" {
		names = append(names, string(r)+"Curso"+string(r), "Cur"+string(r)+"so")
	}
	for _, name := range names {
		var got string
		if err := db.Raw("SELECT unique_name(?)", name).Scan(&got).Error; err != nil {
			t.Fatalf("unique_name(%q): %v", name, err)
		}
		if want := jobs.UniqueName(name); got != want {
			t.Errorf("unique_name(%q) = %q, jobs.UniqueName = %q", name, got, want)
		}
	}
}
