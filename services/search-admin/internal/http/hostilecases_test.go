package http_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/hostiletest"
)

// catalogRows returns every stored Servico and search document as JSON
// text, to tell whether a request changed any.
func (a *testApp) catalogRows(t testing.TB) string {
	t.Helper()
	var s string
	err := a.db.Raw(`SELECT coalesce((SELECT json_agg(s ORDER BY s.id)::text FROM servicos s), '') ||
		coalesce((SELECT json_agg(d ORDER BY d.servico_id, d.schema_version)::text FROM search_documents d), '')`).Scan(&s).Error
	if err != nil {
		t.Fatalf("read the catalog: %v", err)
	}
	return s
}

// TestHostileBodiesGetACleanAnswerAndRefusedOnesChangeNothing runs every
// search-admin case of testdata/hostile/json-bodies.json: never a 5xx, a
// problem body for every error, the status the case allows, and nothing
// stored by a refused request.
func TestHostileBodiesGetACleanAnswerAndRefusedOnesChangeNothing(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico()).servico(t, http.StatusCreated)
	cases := hostiletest.Bodies(t, "/api/v1/admin/")
	if len(cases) < 40 {
		t.Fatalf("only %d cases loaded", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			before := app.catalogRows(t)
			req := httptest.NewRequest(c.Method, c.Path, bytes.NewReader(c.Body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+app.token("catalog-admin"))
			res := app.serve(req)
			switch allowed := c.Allowed(); {
			case res.Status >= 500:
				t.Fatalf("status %d; body %s", res.Status, res.Body)
			case len(allowed) > 0 && !slices.Contains(allowed, res.Status):
				t.Errorf("status %d, the case allows %v (%s); body %.300s", res.Status, allowed, c.Expect, res.Body)
			}
			if res.Status < 400 {
				return
			}
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
				t.Errorf("Content-Type %q", ct)
			}
			if app.catalogRows(t) != before {
				t.Errorf("a refused request changed the catalog")
			}
		})
	}
}
