package http_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/hostiletest"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
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

// TestHostileSearchQueriesGetACleanAnswer runs every case of
// testdata/hostile/search-queries.json in every mode: a 200 page, or a 400
// or 422 problem (bad parameters are a 422 here: blank, repeated or unknown
// ones, text that is not UTF-8 or over 200 characters), never a 5xx.
func TestHostileSearchQueriesGetACleanAnswer(t *testing.T) {
	t.Parallel()
	app := newAppPublishing(t,
		map[string]any{"nome_servico": "Segunda via do IPTU", "resumo": "Guia do imposto predial."},
		map[string]any{"nome_servico": "Certidão de Óbito", "resumo": "Registro do falecimento."},
	)
	cases := hostiletest.Queries(t)
	if len(cases) < 100 {
		t.Fatalf("only %d cases loaded", len(cases))
	}
	for _, mode := range []string{"hybrid", "keyword", "semantic"} {
		for _, c := range cases {
			t.Run(mode+": "+c.Why, func(t *testing.T) {
				query := url.Values{"q": {c.Q}}.Encode()
				if c.Raw != "" {
					query = c.Raw
				}
				if !strings.Contains(query, "mode=") {
					query += "&mode=" + mode
				}
				res := app.serve(newSearchRequest(app, query))
				switch res.Status {
				case http.StatusOK:
					var page catalog.SearchResult
					if err := json.Unmarshal(res.Body, &page); err != nil {
						t.Errorf("decode the page: %v; body %.300s", err, res.Body)
					}
				case http.StatusBadRequest, http.StatusUnprocessableEntity:
					if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
						t.Errorf("status %d with Content-Type %q", res.Status, ct)
					}
				default:
					t.Errorf("status %d (%s); body %.300s", res.Status, c.Expect, res.Body)
				}
			})
		}
	}
}

// newSearchRequest is GET /api/v1/search with the raw query string, as the reader.
func newSearchRequest(app *testApp, rawQuery string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/api/v1/search", nil)
	req.URL.RawQuery = rawQuery
	req.Header.Set("Authorization", "Bearer "+app.token("reader"))
	return req
}

// TestABodyNoOperationReadsIsRefusedAndChangesNothing sends bodies to the
// operations that take none: a DELETE whose body is not even JSON must not
// delete, and search or a list sent its filters as JSON must not answer as
// if they applied. No body, a blank one or {} is no body.
func TestABodyNoOperationReadsIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	sv := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico()).servico(t, http.StatusCreated)
	path := "/api/v1/admin/services/" + sv.ID
	before := app.catalogRows(t)
	for _, tc := range []struct {
		method, path, contentType, body string
		want                            int
	}{
		{http.MethodDelete, path, "application/json", `{"x": 1}`, http.StatusUnprocessableEntity},
		{http.MethodDelete, path, "application/json", `{"nome_servico": `, http.StatusBadRequest},
		{http.MethodDelete, path, "text/plain", "garbage", http.StatusUnsupportedMediaType},
		{http.MethodGet, path, "application/json", `{"x": 1}`, http.StatusUnprocessableEntity},
		{http.MethodGet, "/api/v1/admin/services?per_page=1", "application/json", `{"status": 1}`, http.StatusUnprocessableEntity},
		{http.MethodGet, "/api/v1/search?q=iptu", "application/json", `{"mode": "keyword"}`, http.StatusUnprocessableEntity},
		{http.MethodGet, "/api/v1/admin/migration/status", "application/json", `[]`, http.StatusBadRequest},
		{http.MethodPost, path + "/unpublish", "application/json", `{"status": 1}`, http.StatusUnprocessableEntity},
	} {
		req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", tc.contentType)
		req.Header.Set("Authorization", "Bearer "+app.token("catalog-admin"))
		if got := app.serve(req); got.Status != tc.want {
			t.Errorf("%s %s with %q: %d %s, want %d", tc.method, tc.path, tc.body, got.Status, got.Body, tc.want)
		} else {
			got.problem(t)
		}
	}
	if after := app.catalogRows(t); after != before {
		t.Errorf("refused requests changed the catalog:\nbefore %s\nafter  %s", before, after)
	}
	for _, body := range []any{nil, " \n", map[string]any{}} {
		if got := app.do(http.MethodGet, "/api/v1/search?q=iptu", "catalog-admin", body); got.Status != http.StatusOK {
			t.Errorf("search with the body %v: %d %s", body, got.Status, got.Body)
		}
	}
	if got := app.do(http.MethodDelete, path, "catalog-admin", map[string]any{}); got.Status != http.StatusNoContent {
		t.Errorf("delete with {}: %d %s", got.Status, got.Body)
	}
}
