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
