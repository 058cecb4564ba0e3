package http_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

func TestEveryRouteNeedsATokenWithItsScope(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	id := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico()).servico(t, http.StatusCreated).ID
	routes := []struct {
		method, path, scope string
		readerMay           bool
	}{
		{http.MethodGet, "/api/v1/admin/services", "search:services:read", true},
		{http.MethodPost, "/api/v1/admin/services", "search:services:write", false},
		{http.MethodGet, "/api/v1/admin/services/" + id, "search:services:read", true},
		{http.MethodPut, "/api/v1/admin/services/" + id, "search:services:write", false},
		{http.MethodDelete, "/api/v1/admin/services/" + id, "search:services:write", false},
		{http.MethodPost, "/api/v1/admin/services/" + id + "/publish", "search:services:write", false},
		{http.MethodPost, "/api/v1/admin/services/" + id + "/unpublish", "search:services:write", false},
		{http.MethodGet, "/api/v1/admin/migration/schemas", "search:migrations:read", true},
		{http.MethodGet, "/api/v1/admin/migration/status", "search:migrations:read", true},
		{http.MethodGet, "/api/v1/admin/migration/history", "search:migrations:read", true},
		{http.MethodPost, "/api/v1/admin/migration/start", "search:migrations:write", false},
		{http.MethodPost, "/api/v1/admin/migration/rollback", "search:migrations:write", false},
		{http.MethodGet, "/api/v1/search?q=iptu", "search:read", true},
	}
	claims := app.idp.Claims(t, "catalog-admin")
	claims["exp"] = time.Now().Add(-time.Hour).Unix()
	expired := app.idp.SignRaw(t, claims, nil)
	unsigned := devidptest.Unsigned(t, app.idp.Claims(t, "catalog-admin"), nil)
	for _, r := range routes {
		t.Run(r.method+" "+r.path+" without a token is 401", func(t *testing.T) {
			t.Parallel()
			resp := app.do(r.method, r.path, "", validServico())
			if resp.Status != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("status %d, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
			}
		})
		for name, tok := range map[string]string{"an expired": expired, "an unsigned": unsigned, "a garbage": "not.a.jwt"} {
			t.Run(r.method+" "+r.path+" with "+name+" token is 401", func(t *testing.T) {
				t.Parallel()
				req := newRequest(r.method, r.path, "")
				req.Header.Set("Authorization", "Bearer "+tok)
				if resp := app.serve(req); resp.Status != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "invalid_token") {
					t.Errorf("status %d, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
				}
			})
		}
		t.Run(r.method+" "+r.path+" by another department's client is 403", func(t *testing.T) {
			t.Parallel()
			resp := app.do(r.method, r.path, "jobs-admin", validServico())
			if resp.Status != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="`+r.scope+`"`) {
				t.Errorf("status %d, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
			}
		})
		if !r.readerMay {
			t.Run(r.method+" "+r.path+" by the read-only client is 403", func(t *testing.T) {
				t.Parallel()
				if resp := app.do(r.method, r.path, "reader", validServico()); resp.Status != http.StatusForbidden {
					t.Errorf("status %d", resp.Status)
				}
			})
		}
	}
	var n int64
	app.db.Raw("SELECT count(*) FROM servicos").Scan(&n)
	if n != 1 {
		t.Errorf("refused requests changed the catalog: %d servicos", n)
	}
}

func TestServicoLifecycle(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	created := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico()).servico(t, http.StatusCreated)
	path := "/api/v1/admin/services/" + created.ID
	time.Sleep(1100 * time.Millisecond) // timestamps are whole seconds; let last_update move

	published := app.do(http.MethodPost, path+"/publish", "catalog-admin", nil).servico(t, http.StatusOK)
	if published.Status != catalog.StatusPublished || published.PublishedAt == nil || published.LastUpdate <= created.LastUpdate {
		t.Fatalf("publish: status %d published_at %v last_update %d", published.Status, published.PublishedAt, published.LastUpdate)
	}
	if published.SearchContent != created.SearchContent || len(published.Embedding) == 0 {
		t.Error("publish lost the search document")
	}
	unpublished := app.do(http.MethodPost, path+"/unpublish", "catalog-admin", nil).servico(t, http.StatusOK)
	if unpublished.Status != catalog.StatusDraft || unpublished.PublishedAt == nil || *unpublished.PublishedAt != *published.PublishedAt {
		t.Errorf("unpublish: status %d published_at %v", unpublished.Status, unpublished.PublishedAt)
	}

	body := with(map[string]any{"nome_servico": "Parcelamento do IPTU", "status": 1, "descricao_completa": "Divida em até 10 vezes."})
	replaced := app.do(http.MethodPut, path, "catalog-admin", body).servico(t, http.StatusOK)
	if replaced.ID != created.ID || replaced.Autor != created.Autor || replaced.CreatedAt != created.CreatedAt {
		t.Errorf("replace changed id, autor or created_at")
	}
	if *replaced.PublishedAt != *published.PublishedAt || replaced.Status != 1 {
		t.Errorf("replace with status 1 restamped published_at %d (was %d)", *replaced.PublishedAt, *published.PublishedAt)
	}
	if !strings.Contains(replaced.SearchContent, "parcelamento do iptu") || !strings.Contains(replaced.SearchContent, "divida em ate 10 vezes") ||
		slices.Equal(replaced.Embedding, created.Embedding) {
		t.Errorf("replace did not rebuild the search document: %q", replaced.SearchContent)
	}
	if got := app.do(http.MethodPut, path, "catalog-admin", with(map[string]any{"resumo": strings.Repeat("x", 351)})); got.Status != http.StatusUnprocessableEntity {
		t.Errorf("invalid replace status %d", got.Status)
	}
	if again := app.do(http.MethodGet, path, "reader", nil).servico(t, http.StatusOK); again.NomeServico != "Parcelamento do IPTU" {
		t.Errorf("an invalid replace changed the stored entry to %q", again.NomeServico)
	}

	if resp := app.do(http.MethodDelete, path, "catalog-admin", nil); resp.Status != http.StatusNoContent {
		t.Fatalf("delete status %d", resp.Status)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		if resp := app.do(method, path, "catalog-admin", nil); resp.Status != http.StatusNotFound {
			t.Errorf("%s after delete: status %d", method, resp.Status)
		}
	}
	var docs int64
	app.db.Raw("SELECT count(*) FROM search_documents WHERE servico_id = ?", created.ID).Scan(&docs)
	if docs != 0 {
		t.Errorf("delete left %d search documents", docs)
	}
}

func TestOddIdsAndPathsAreNotFound(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	for _, path := range []string{
		"/api/v1/admin/services/123",
		"/api/v1/admin/services/not-a-uuid",
		"/api/v1/admin/services/%7B01a20528-6107-7ced-9ad5-dd5113b3a38a%7D",
		"/api/v1/admin/services/01a20528-6107-7ced-9ad5-dd5113b3a38a",
		"/api/v1/admin/services/01a20528-6107-7ced-9ad5-dd5113b3a38a/publish",
		"/api/v1/admin/services/%C3%A7%00",
		"/api/v1/admin/services/",
		"/api/v1/admin/servicos",
	} {
		t.Run(path+" is 404", func(t *testing.T) {
			t.Parallel()
			method := http.MethodGet
			if strings.HasSuffix(path, "/publish") {
				method = http.MethodPost
			}
			resp := app.do(method, path, "catalog-admin", nil)
			if resp.Status != http.StatusNotFound || resp.problem(t).Status != http.StatusNotFound {
				t.Errorf("status %d; body %s", resp.Status, resp.Body)
			}
		})
	}
}

type listBody struct {
	Data []catalog.Servico `json:"data"`
	Meta struct {
		Page, PerPage int
		Total         int64
	} `json:"meta"`
}

func TestListFiltersAndPages(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	for i, name := range []string{"Alvará", "Coleta seletiva", "Poda de árvore"} {
		body := with(map[string]any{"nome_servico": name, "status": i % 2, "is_free": i == 1})
		app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", body).servico(t, http.StatusCreated)
	}
	tests := []struct {
		query string
		want  []string
		total int64
	}{
		{"", []string{"Poda de árvore", "Coleta seletiva", "Alvará"}, 3},
		{"?status=0", []string{"Poda de árvore", "Alvará"}, 2},
		{"?status=1&is_free=true", []string{"Coleta seletiva"}, 1},
		{"?text=ARVORE", []string{"Poda de árvore"}, 1},
		{"?orgao_gestor=Secretaria+Municipal+de+Fazenda&per_page=1&page=2", []string{"Coleta seletiva"}, 3},
		{"?per_page=1000", []string{"Poda de árvore", "Coleta seletiva", "Alvará"}, 3},
	}
	for _, tt := range tests {
		t.Run("list"+tt.query, func(t *testing.T) {
			t.Parallel()
			resp := app.do(http.MethodGet, "/api/v1/admin/services"+tt.query, "reader", nil)
			var body listBody
			if err := json.Unmarshal(resp.Body, &body); err != nil || resp.Status != http.StatusOK {
				t.Fatalf("status %d, %v", resp.Status, err)
			}
			var names []string
			for _, s := range body.Data {
				names = append(names, s.NomeServico)
			}
			if !slices.Equal(names, tt.want) || body.Meta.Total != tt.total || body.Meta.PerPage > 100 {
				t.Errorf("names %q total %d per_page %d; want %q total %d", names, body.Meta.Total, body.Meta.PerPage, tt.want, tt.total)
			}
		})
	}
	bad := []struct{ query, field string }{
		{"?status=2", "status"}, {"?status=draft", "status"}, {"?is_free=yes", "is_free"}, {"?page=0", "page"},
		{"?per_page=-1", "per_page"}, {"?page=99999999999", "page"}, {"?statsu=1", "statsu"}, {"?text=a%00b", "text"},
		{"?text=" + strings.Repeat("a", 256), "text"}, {"?status=0&status=1", "status"},
		// Given empty, a number or a boolean is none (it was read as absent).
		{"?page=", "page"}, {"?per_page=", "per_page"}, {"?page", "page"}, {"?is_free=", "is_free"},
	}
	for _, tt := range bad {
		t.Run("list"+tt.query[:min(len(tt.query), 30)]+" is 422 on "+tt.field, func(t *testing.T) {
			t.Parallel()
			resp := app.do(http.MethodGet, "/api/v1/admin/services"+tt.query, "reader", nil)
			if resp.Status != http.StatusUnprocessableEntity || len(resp.problem(t).Errors) == 0 || resp.problem(t).Errors[0].Field != tt.field {
				t.Errorf("status %d; body %s", resp.Status, resp.Body)
			}
		})
	}
}

func TestSchemasReportTheVersionStoredNow(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	var report catalog.SchemaReport
	read := func() {
		resp := app.do(http.MethodGet, "/api/v1/admin/migration/schemas", "reader", nil)
		if err := json.Unmarshal(resp.Body, &report); err != nil || resp.Status != http.StatusOK {
			t.Fatalf("status %d, %v", resp.Status, err)
		}
	}
	read()
	if report.CurrentVersion != "v3" || !slices.Equal(report.AvailableVersions, []string{"v1", "v2", "v3"}) || len(report.Schemas) != 3 {
		t.Fatalf("report %+v", report)
	}
	if report.Schemas[0].Dimensions != 256 || report.Schemas[2].Dimensions != 384 || report.Schemas[2].EmbeddingModel != "hash/ngram-fnv1a" {
		t.Errorf("schemas %+v", report.Schemas)
	}
	if err := app.db.Exec("UPDATE search_settings SET current_version = 'v1'").Error; err != nil {
		t.Fatal(err)
	}
	read()
	if report.CurrentVersion != "v1" {
		t.Errorf("current_version = %q after the stored version changed to v1", report.CurrentVersion)
	}
	sv := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico()).servico(t, http.StatusCreated)
	if sv.SchemaVersion != "v1" || len(sv.Embedding) != 256 || sv.SearchContent != "Emissão de 2ª via do IPTU\nSolicite a segunda via da guia do IPTU.\nTributos" {
		t.Errorf("a create under v1 built version %q, %d dimensions, content %q", sv.SchemaVersion, len(sv.Embedding), sv.SearchContent)
	}
}

// A replace made conditional on an entity tag, which the API never sends,
// must not happen: it overwrote the entry the client meant to protect.
func TestAConditionalReplaceChangesNothing(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	created := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico()).servico(t, http.StatusCreated)
	path := "/api/v1/admin/services/" + created.ID
	raw, _ := json.Marshal(with(map[string]any{"nome_servico": "Mudado"}))
	for _, h := range [][2]string{{"If-Match", `"v1"`}, {"If-None-Match", "*"}} {
		req := httptest.NewRequest(http.MethodPut, path, bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+app.token("catalog-admin"))
		req.Header.Set(h[0], h[1])
		if resp := app.serve(req); resp.Status != http.StatusPreconditionFailed {
			t.Errorf("%s: %s: status %d, want 412: %s", h[0], h[1], resp.Status, resp.Body)
		}
	}
	if got := app.do(http.MethodGet, path, "reader", nil).servico(t, http.StatusOK); got.NomeServico != created.NomeServico || got.LastUpdate != created.LastUpdate {
		t.Errorf("a refused conditional replace changed the entry: %q", got.NomeServico)
	}
}
