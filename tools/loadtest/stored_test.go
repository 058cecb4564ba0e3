package loadtest_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/municipal-apis/platform/pkg/stack"
	"github.com/municipal-apis/platform/tools/internal/load"
)

// tables maps each resource of the load to its table; the name member of a
// resource is also its column.
var tables = map[*load.Resource]string{
	load.Servico: "servicos", load.Emprego: "empregos", load.Escolaridade: "escolaridades", load.Categoria: "categorias",
}

// databaseOf returns the URL of the database holding r.
func databaseOf(s *stack.Stack, r *load.Resource) string {
	if r.Area == load.SearchArea {
		return s.SearchDatabaseURL
	}
	return s.JobsDatabaseURL
}

// checkStored compares, resource by resource, the rows of the run in the
// database with the rows the client saw created.
func checkStored(t *testing.T, s *stack.Stack, rep *load.Report) {
	seen := map[string][]load.Created{}
	for _, c := range rep.Created {
		seen[c.Resource] = append(seen[c.Resource], c)
	}
	for _, r := range load.Resources {
		rows := storedRows(t, databaseOf(s, r), tables[r], r.NameField, rep.Marker)
		if len(rows) != len(seen[r.Name]) {
			t.Errorf("%s: %d rows of the run stored, %d seen created", r.Name, len(rows), len(seen[r.Name]))
		}
		for _, c := range seen[r.Name] {
			name, ok := rows[c.ID]
			switch {
			case !ok:
				t.Errorf("%s %s (%q) was answered 201 but is not stored", r.Name, c.ID, c.Name)
			case name != c.Name && !slices.Contains(rep.Updates[load.UpdateKey(r.Name, c.ID)], name):
				t.Errorf("%s %s is stored as %q, which is neither its create %q nor one of its updates", r.Name, c.ID, name, c.Name)
			}
		}
		checkNamesOnce(t, r, rows)
	}
}

// checkNamesOnce fails when two stored rows carry the same marked name: one
// request stored twice.
func checkNamesOnce(t *testing.T, r *load.Resource, rows map[string]string) {
	owner := map[string]string{}
	for id, name := range rows {
		if other, dup := owner[name]; dup {
			t.Errorf("%s: rows %s and %s are both named %q", r.Name, other, id, name)
		}
		owner[name] = id
	}
}

// storedRows returns id → name of the rows of table whose column holds
// marker.
func storedRows(t *testing.T, dsn, table, column, marker string) map[string]string {
	t.Helper()
	conn := connect(t, dsn)
	query := fmt.Sprintf("SELECT id::text, %s FROM %s WHERE strpos(%s, $1) > 0",
		pgx.Identifier{column}.Sanitize(), pgx.Identifier{table}.Sanitize(), pgx.Identifier{column}.Sanitize())
	rows, err := conn.Query(context.Background(), query, marker+"-")
	if err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	stored := map[string]string{}
	var id, name string
	_, err = pgx.ForEachRow(rows, []any{&id, &name}, func() error {
		stored[id] = name
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	return stored
}

// checkSearchDocuments fails for every servico of the run without exactly
// one search document in the current schema version.
func checkSearchDocuments(t *testing.T, s *stack.Stack, rep *load.Report) {
	conn := connect(t, s.SearchDatabaseURL)
	var bad int
	err := conn.QueryRow(context.Background(), `
		SELECT count(*) FROM servicos s
		WHERE strpos(s.nome_servico, $1) > 0
		  AND (SELECT count(*) FROM search_documents d
		       WHERE d.servico_id = s.id AND d.schema_version = (SELECT current_version FROM search_settings)) <> 1`,
		rep.Marker+"-").Scan(&bad)
	if err != nil {
		t.Fatalf("read search documents: %v", err)
	}
	if bad > 0 {
		t.Errorf("%d servicos of the run lack exactly one search document in the current version", bad)
	}
}

// connect opens a connection closed when t ends.
func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatalf("connect to %s: %v", dsn, err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}
