package migrations_test

import (
	"context"
	"maps"
	"testing"

	"github.com/pressly/goose/v3"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// everydayVersion is migration 00015_search_synonyms_everyday.sql.
const everydayVersion = 15

// rules returns every synonym rule by id, with its autor.
func rules(t *testing.T, db *gorm.DB) map[string]string {
	t.Helper()
	var rows []struct{ ID, Autor string }
	if err := db.Raw("SELECT id, autor FROM search_synonyms").Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		out[r.ID] = r.Autor
	}
	return out
}

func revision(t *testing.T, db *gorm.DB) int64 {
	t.Helper()
	var rev int64
	if err := db.Raw("SELECT revision FROM search_synonyms_revision").Scan(&rev).Error; err != nil {
		t.Fatal(err)
	}
	return rev
}

// TestTheEverydaySynonymsMigrationDownRemovesExactlyItsRows: Down deletes
// the rows Up inserted and nothing else (the default set of 00010 and an
// administrator's rule stay), bumps the synonyms revision so replicas
// reload, and Up inserts the same number of rows again.
func TestTheEverydaySynonymsMigrationDownRemovesExactlyItsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewDB(t, migrations.FS)
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}

	withEveryday := rules(t, db)
	var added []string
	for id, autor := range withEveryday {
		if autor == "search-admin-everyday" {
			added = append(added, id)
		}
	}
	if len(added) < 250 || len(added) == len(withEveryday) {
		t.Fatalf("after every migration: %d rules of 00015 among %d", len(added), len(withEveryday))
	}

	rev := revision(t, db)
	if _, err := p.ApplyVersion(ctx, everydayVersion, false); err != nil {
		t.Fatalf("down %d: %v", everydayVersion, err)
	}
	before := rules(t, db)
	want := maps.Clone(withEveryday)
	for _, id := range added {
		delete(want, id)
	}
	if !maps.Equal(before, want) {
		t.Fatalf("down left %d rules, want the %d not added by 00015", len(before), len(want))
	}
	if got := revision(t, db); got <= rev {
		t.Errorf("down left the synonyms revision at %d, was %d", got, rev)
	}

	if err := db.Exec(`INSERT INTO search_synonyms (id, root, synonyms, autor, created_at, last_update)
		VALUES ('01900000-0000-7000-8000-000000000001', 'poste apagado', '["iluminação pública"]', 'service-account-catalog-admin', 1, 1)`).Error; err != nil {
		t.Fatal(err)
	}
	before["01900000-0000-7000-8000-000000000001"] = "service-account-catalog-admin"

	if _, err := p.ApplyVersion(ctx, everydayVersion, true); err != nil {
		t.Fatalf("up %d: %v", everydayVersion, err)
	}
	after := rules(t, db)
	var again []string
	for id, autor := range after {
		if _, ok := before[id]; !ok {
			if autor != "search-admin-everyday" {
				t.Errorf("up added rule %s by %q", id, autor)
			}
			again = append(again, id)
		}
	}
	if len(again) != len(added) || len(after) != len(before)+len(added) {
		t.Errorf("up again added %d rules (%d in all), want %d (%d)", len(again), len(after), len(added), len(before)+len(added))
	}

	if _, err := p.ApplyVersion(ctx, everydayVersion, false); err != nil {
		t.Fatalf("down %d again: %v", everydayVersion, err)
	}
	if got := rules(t, db); !maps.Equal(got, before) {
		t.Errorf("down again kept %d rules, want %d: the defaults and the administrator's", len(got), len(before))
	}
}
