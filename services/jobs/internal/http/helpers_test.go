package http_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

// Clients of the development realm by what they may do with jobs.
const (
	admin     = devidptest.JobsAdmin    // jobs:read jobs:write
	readOnly  = devidptest.Reader       // jobs:read
	noJobs    = devidptest.CatalogAdmin // no jobs scope
	otherDept = devidptest.OtherDept    // jobs:read jobs:write, another department
)

// mustCreate posts body to the collection at path as admin, expects 201 and
// returns the created resource.
func (e *env) mustCreate(path string, body any) map[string]any {
	e.t.Helper()
	res := e.do(http.MethodPost, path, admin, body)
	if res.Status != http.StatusCreated {
		e.t.Fatalf("POST %s = %d %s", path, res.Status, res.Body)
	}
	return res.object(e.t)
}

// id returns the id member of a decoded resource.
func id(m map[string]any) int64 { return int64(m["id"].(float64)) }

// at is the path of resource id in collection.
func at(collection string, id int64) string { return fmt.Sprintf("/api/v1/%s/%d", collection, id) }

// expectStatus fails t when res.Status is not want.
func expectStatus(t testing.TB, res response, want int) {
	t.Helper()
	if res.Status != want {
		t.Fatalf("status = %d, want %d; body %s", res.Status, want, res.Body)
	}
}

// expectFields fails t when the 422 does not name every field of want.
func expectFields(t testing.TB, res response, want ...string) {
	t.Helper()
	expectStatus(t, res, http.StatusUnprocessableEntity)
	got := res.fields(t)
	for _, f := range want {
		if !slices.Contains(got, f) {
			t.Errorf("violations %v do not name %q; body %s", got, f, res.Body)
		}
	}
}

// count returns the number of rows of table.
func (e *env) count(table string) int64 {
	e.t.Helper()
	var n int64
	if err := e.db.Table(table).Count(&n).Error; err != nil {
		e.t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// snapshot returns every row of every table as JSON text, to prove a request changed nothing.
func (e *env) snapshot() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	for _, table := range []string{"empresas", "escolaridades", "orgaos", "categorias", "empregos", "cursos", "curso_categorias"} {
		var s string
		err := e.db.Raw("SELECT coalesce(json_agg(t ORDER BY t)::text, '[]') FROM " + table + " t").Scan(&s).Error
		if err != nil {
			e.t.Fatalf("snapshot %s: %v", table, err)
		}
		out[table] = s
	}
	return out
}
