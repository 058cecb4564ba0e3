package pgtest_test

import (
	"testing"
	"testing/fstest"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
)

func file(sql string) fstest.MapFS {
	return fstest.MapFS{"00001_init.sql": {Data: []byte("-- +goose Up\n" + sql + "\n")}}
}

func TestNewDBBuildsTheDatabaseFromEverySet(t *testing.T) {
	t.Parallel()
	program := file(`CREATE TABLE program_rows (id int);`)
	tests := []struct {
		name  string
		extra []pg.Set
		want  map[string]bool
	}{
		{"the program's set alone", nil,
			map[string]bool{"program_rows": true, "component_rows": false, "goose_component": false}},
		{"an extra set adds its tables and its own version table", []pg.Set{{Name: "component", FS: file(`CREATE TABLE component_rows (id int);`)}},
			map[string]bool{"program_rows": true, "component_rows": true, "goose_component": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := pgtest.NewDB(t, program, tt.extra...)
			for table, want := range tt.want {
				var exists bool
				if err := db.Raw(`SELECT to_regclass(?) IS NOT NULL`, table).Scan(&exists).Error; err != nil {
					t.Fatal(err)
				}
				if exists != want {
					t.Errorf("table %s exists = %v, want %v", table, exists, want)
				}
			}
		})
	}
}

func TestNewURLGivesEveryTestItsOwnDatabase(t *testing.T) {
	t.Parallel()
	fs := file(`CREATE TABLE rows (id int);`)
	a, b := pgtest.NewDB(t, fs), pgtest.NewDB(t, fs)
	if err := a.Exec(`INSERT INTO rows VALUES (1)`).Error; err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := b.Raw(`SELECT count(*) FROM rows`).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("a write to one test database shows in another: %d rows", n)
	}
}
