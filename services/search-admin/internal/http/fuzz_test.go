package http_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/hostiletest"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// FuzzServicoBodies sends arbitrary bodies as a create and as a replace of
// a stored Servico through the real handler on a real database: never a
// 5xx, a problem body for every error, nothing changed by a refused request.
func FuzzServicoBodies(f *testing.F) {
	for _, c := range hostiletest.Bodies(f, "/api/v1/admin/") {
		if len(c.Body) <= hostiletest.MaxSeedBytes {
			f.Add(false, c.Body)
		}
	}
	full, _ := json.Marshal(with(map[string]any{"descricao_completa": "Descrição", "agents": map[string]any{"exclusive_for_agents": true, "tool_hint": "x"},
		"canais_digitais": []string{"https://carioca.rio"}, "extra_fields": map[string]any{"a": []any{1, "b", nil}}, "status": 1, "published_at": 1700000000}))
	f.Add(false, full)
	f.Add(true, full)
	app := newApp(f)
	stored := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico()).servico(f, http.StatusCreated)
	f.Fuzz(func(t *testing.T, replace bool, body []byte) {
		method, path := http.MethodPost, "/api/v1/admin/services"
		if replace {
			method, path = http.MethodPut, path+"/"+stored.ID
		}
		before := app.catalogRows(t)
		req := httptest.NewRequest(method, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+app.token("catalog-admin"))
		res := app.serve(req)
		if res.Status >= 500 {
			t.Fatalf("%s: status %d; body %s", method, res.Status, res.Body)
		}
		if res.Status < 400 {
			return
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
			t.Fatalf("%s: status %d with Content-Type %q", method, res.Status, ct)
		}
		if app.catalogRows(t) != before {
			t.Fatalf("%s: a refused request (status %d) changed the catalog", method, res.Status)
		}
	})
}

// FuzzSearch searches a small published catalog for arbitrary text in
// every mode through the real handler and Postgres: the answer is a 200
// with a page no longer than per_page, or a 4xx problem for text the
// parameters refuse, never a 5xx.
func FuzzSearch(f *testing.F) {
	for _, q := range hostiletest.Queries(f) {
		if len(q.Q) <= hostiletest.MaxSeedBytes {
			f.Add(q.Q, uint8(0))
		}
	}
	for i, q := range []string{"certidão", "segunda via iptu", "matricula escolar", "vacina", "a & b | !c", "iptuː2024", "poda:*"} {
		f.Add(q, uint8(i))
	}
	app := newApp(f)
	for _, s := range []map[string]any{
		{"nome_servico": "Certidão de Óbito", "resumo": "Registro do falecimento."},
		{"nome_servico": "Segunda via do IPTU", "resumo": "Guia do imposto.", "tema_geral": "Tributos"},
		{"nome_servico": "Matrícula escolar", "resumo": "Vaga na rede municipal.", "orgao_gestor": []string{"SME"}},
	} {
		app.publish(f, s)
	}
	app.waitForVectors(f, 3)
	modes := []string{catalog.ModeHybrid, catalog.ModeKeyword, catalog.ModeSemantic}
	f.Fuzz(func(t *testing.T, q string, mode uint8) {
		params := url.Values{"q": {q}, "mode": {modes[int(mode)%len(modes)]}, "per_page": {"5"}}
		res := app.do(http.MethodGet, "/api/v1/search?"+params.Encode(), "reader", nil)
		switch {
		case res.Status >= 500:
			t.Fatalf("q %q: status %d; body %s", q, res.Status, res.Body)
		case res.Status >= 400:
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
				t.Fatalf("q %q: status %d with Content-Type %q", q, res.Status, ct)
			}
		case res.Status == http.StatusOK:
			var page catalog.SearchResult
			if err := json.Unmarshal(res.Body, &page); err != nil || len(page.Data) > 5 || page.Meta.Total < len(page.Data) {
				t.Fatalf("q %q: page %s (%v)", q, res.Body, err)
			}
		default:
			t.Fatalf("q %q: status %d", q, res.Status)
		}
	})
}
