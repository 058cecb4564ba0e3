package http_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

const synonymsPath = "/api/v1/admin/synonyms"

// synonym decodes a synonym rule answer, failing unless the status is want.
func (r response) synonym(t testing.TB, want int) catalog.Synonym {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status = %d, want %d; body %s", r.Status, want, r.Body)
	}
	var s catalog.Synonym
	if err := json.Unmarshal(r.Body, &s); err != nil {
		t.Fatalf("decode synonym: %v; body %s", err, r.Body)
	}
	return s
}

// withoutDefaultSynonyms deletes the default rules so a test controls
// every rule that applies.
func (a *testApp) withoutDefaultSynonyms(t testing.TB) {
	t.Helper()
	if err := a.db.Exec("DELETE FROM search_synonyms").Error; err != nil {
		t.Fatal(err)
	}
}

func TestSynonymRulesAreCreatedListedReadReplacedAndDeleted(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	app.withoutDefaultSynonyms(t)

	resp := app.do(http.MethodPost, synonymsPath, "catalog-admin", map[string]any{"synonyms": []string{" Lixo ", "resíduos  sólidos", ""}})
	multi := resp.synonym(t, http.StatusCreated)
	if resp.Header.Get("Location") != synonymsPath+"/"+multi.ID || multi.Root != "" || !slices.Equal(multi.Synonyms, []string{"Lixo", "resíduos sólidos"}) ||
		multi.Autor != adminAutor || multi.CreatedAt == 0 || multi.LastUpdate != multi.CreatedAt {
		t.Fatalf("created %+v, Location %q", multi, resp.Header.Get("Location"))
	}
	oneWay := app.do(http.MethodPost, synonymsPath, "catalog-admin", map[string]any{
		"root": "poste", "synonyms": []string{"iluminação pública"}, "id": "forged", "autor": "x", "created_at": 1,
	}).synonym(t, http.StatusCreated)
	if oneWay.Root != "poste" || oneWay.ID == "forged" || oneWay.Autor != adminAutor || oneWay.CreatedAt == 1 {
		t.Fatalf("one-way rule %+v keeps a client-sent read-only member", oneWay)
	}

	if got := app.do(http.MethodGet, synonymsPath+"/"+multi.ID, "reader", nil).synonym(t, http.StatusOK); got.ID != multi.ID || !slices.Equal(got.Synonyms, multi.Synonyms) {
		t.Errorf("get = %+v", got)
	}
	var list struct {
		Data []catalog.Synonym                  `json:"data"`
		Meta struct{ Page, PerPage, Total int } `json:"meta"`
	}
	resp = app.do(http.MethodGet, synonymsPath+"?per_page=1", "reader", nil)
	if err := json.Unmarshal(resp.Body, &list); err != nil || resp.Status != http.StatusOK || list.Meta.Total != 2 || len(list.Data) != 1 || list.Data[0].ID != oneWay.ID {
		t.Errorf("list: status %d, %+v (newest first, one per page)", resp.Status, list)
	}
	resp = app.do(http.MethodGet, synonymsPath+"?text=RESIDUOS", "reader", nil)
	if err := json.Unmarshal(resp.Body, &list); err != nil || list.Meta.Total != 1 || list.Data[0].ID != multi.ID {
		t.Errorf("list by text ignoring case and accents: %+v", list)
	}

	replaced := app.do(http.MethodPut, synonymsPath+"/"+multi.ID, "catalog-admin", map[string]any{"root": "lixo", "synonyms": []string{"resíduos"}}).synonym(t, http.StatusOK)
	if replaced.ID != multi.ID || replaced.Root != "lixo" || !slices.Equal(replaced.Synonyms, []string{"resíduos"}) ||
		replaced.CreatedAt != multi.CreatedAt || replaced.Autor != multi.Autor || replaced.LastUpdate < multi.LastUpdate {
		t.Errorf("replaced %+v, was %+v", replaced, multi)
	}

	if resp := app.do(http.MethodDelete, synonymsPath+"/"+multi.ID, "catalog-admin", nil); resp.Status != http.StatusNoContent {
		t.Errorf("delete: status %d", resp.Status)
	}
	for _, path := range []string{synonymsPath + "/" + multi.ID, synonymsPath + "/not-a-uuid", synonymsPath + "/00000000-0000-7000-8000-000000000001"} {
		if resp := app.do(http.MethodGet, path, "reader", nil); resp.Status != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", path, resp.Status)
		}
	}
	if resp := app.do(http.MethodPut, synonymsPath+"/"+multi.ID, "catalog-admin", map[string]any{"synonyms": []string{"a", "b"}}); resp.Status != http.StatusNotFound {
		t.Errorf("replace of a deleted rule: status %d", resp.Status)
	}
	if resp := app.do(http.MethodPost, synonymsPath, "reader", map[string]any{"synonyms": []string{"a", "b"}}); resp.Status != http.StatusForbidden {
		t.Errorf("create without search:services:write: status %d", resp.Status)
	}
}

func TestSynonymRulesAreValidated(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	tests := []struct {
		name  string
		body  any
		field string
		code  string
	}{
		{"synonyms are required", map[string]any{"root": "lixo"}, "synonyms", "required"},
		{"a multi-way rule needs two terms", map[string]any{"synonyms": []string{"lixo", " "}}, "synonyms", "min_items"},
		{"a one-way rule needs a synonym", map[string]any{"root": "lixo", "synonyms": []string{}}, "synonyms", "min_items"},
		{"terms differing only in case and accents repeat each other", map[string]any{"synonyms": []string{"Resíduo", "residuo"}}, "synonyms[1]", "duplicate"},
		{"the root is no synonym of itself", map[string]any{"root": "lixo", "synonyms": []string{"LIXO"}}, "synonyms[0]", "duplicate"},
		{"a term holds a word", map[string]any{"synonyms": []string{"lixo", "!!!"}}, "synonyms[1]", "invalid_value"},
		{"a root holds a word", map[string]any{"root": "--", "synonyms": []string{"lixo"}}, "root", "invalid_value"},
		{"a term is at most 100 characters", map[string]any{"synonyms": []string{"lixo", strings.Repeat("a", 101)}}, "synonyms[1]", "max_length"},
		{"a term has at most 8 words", map[string]any{"synonyms": []string{"lixo", "a b c d e f g h i"}}, "synonyms[1]", "max_words"},
		{"a term holds no NUL", map[string]any{"synonyms": []string{"lixo", "a\u0000b"}}, "synonyms[1]", "invalid_value"},
		{"a rule has at most 32 terms", map[string]any{"synonyms": strings.Split(strings.Repeat("x,", 33), ",")}, "synonyms", "max_items"},
		{"an unknown member is refused", map[string]any{"synonyms": []string{"a", "b"}, "weight": 2}, "weight", "unknown_field"},
		{"synonyms are strings", map[string]any{"synonyms": "lixo, resíduo"}, "synonyms", "invalid_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := app.do(http.MethodPost, synonymsPath, "catalog-admin", tt.body)
			if resp.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422; body %s", resp.Status, resp.Body)
			}
			p := resp.problem(t)
			if !slices.ContainsFunc(p.Errors, func(e struct {
				Field string `json:"field"`
				Code  string `json:"code"`
			}) bool {
				return e.Field == tt.field && e.Code == tt.code
			}) {
				t.Errorf("violations %+v, want %s on %s", p.Errors, tt.code, tt.field)
			}
		})
	}
	if resp := app.do(http.MethodGet, synonymsPath+"?sort=id&page=0", "reader", nil); resp.Status != http.StatusUnprocessableEntity {
		t.Errorf("a list with an unknown parameter answered %d", resp.Status)
	}
}

// TestSynonymRulesApplyAtQueryTimeAndShowInMeta: rules change keyword search
// at the next search, on every replica, without re-indexing, and each rule
// that fired is named in meta.
func TestSynonymRulesApplyAtQueryTimeAndShowInMeta(t *testing.T) {
	t.Parallel()
	dsn, idp := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t)
	app := newAppOn(t, dsn, idp, embedding.Hash{})
	other := newAppOn(t, dsn, idp, embedding.Hash{})
	app.withoutDefaultSynonyms(t)
	app.publish(t, map[string]any{"nome_servico": "Reparo de iluminação pública", "resumo": "Lâmpadas queimadas nas vias."})
	app.publish(t, map[string]any{"nome_servico": "Recolhimento de resíduos volumosos", "resumo": "Móveis velhos."})
	// The other replica learns of the writes from their notifications:
	// its index holds them once its vectors do.
	other.waitForVectors(t, 2)
	search := func(a *testApp, q string) catalog.SearchResult {
		return a.searchPage(t, url.Values{"q": {q}, "mode": {"keyword"}})
	}
	if page := search(app, "poste apagado "); len(page.Data) != 0 || page.Meta.Synonyms != nil {
		t.Fatalf("before any rule: %q, meta %+v", names(page), page.Meta)
	}
	oneWay := app.do(http.MethodPost, synonymsPath, "catalog-admin", map[string]any{"root": "poste apagado", "synonyms": []string{"iluminação pública"}}).synonym(t, http.StatusCreated)
	multi := app.do(http.MethodPost, synonymsPath, "catalog-admin", map[string]any{"synonyms": []string{"sofá velho", "volumosos"}}).synonym(t, http.StatusCreated)

	for _, a := range []*testApp{app, other} {
		page := search(a, "Postes apagados ")
		if got := names(page); !slices.Equal(got, []string{"Reparo de iluminação pública"}) {
			t.Errorf("a one-way rule matching an inflected root: %q", got)
		}
		want := []catalog.FiredSynonym{{ID: oneWay.ID, Matched: "postes apagados", Added: []string{"iluminação pública"}}}
		if !slices.EqualFunc(page.Meta.Synonyms, want, firedEqual) {
			t.Errorf("meta.synonyms = %+v, want %+v", page.Meta.Synonyms, want)
		}
	}
	if got := names(search(app, "iluminação pública ")); slices.Contains(got, "Recolhimento de resíduos volumosos") {
		t.Errorf("a one-way rule applied backwards: %q", got)
	}
	if got := names(search(app, "sofa velho ")); !slices.Equal(got, []string{"Recolhimento de resíduos volumosos"}) {
		t.Errorf("a multi-way rule, typed without accents: %q", got)
	}
	if page := app.searchPage(t, url.Values{"q": {"sofá velho"}, "mode": {"hybrid"}}); len(page.Meta.Synonyms) != 1 || page.Meta.Synonyms[0].ID != multi.ID {
		t.Errorf("hybrid meta.synonyms = %+v", page.Meta.Synonyms)
	}

	app.do(http.MethodDelete, synonymsPath+"/"+oneWay.ID, "catalog-admin", nil)
	for _, a := range []*testApp{app, other} {
		if page := search(a, "poste apagado "); len(page.Data) != 0 || page.Meta.Synonyms != nil {
			t.Errorf("after deleting the rule: %q, meta %+v", names(page), page.Meta)
		}
	}
}

func firedEqual(a, b catalog.FiredSynonym) bool {
	return a.ID == b.ID && a.Matched == b.Matched && slices.Equal(a.Added, b.Added)
}

// TestTheDefaultSynonymsLinkEverydayWordsToTheCatalog checks a few rules of
// the set migration 00010 ships, one per area.
func TestTheDefaultSynonymsLinkEverydayWordsToTheCatalog(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	var list struct {
		Meta struct{ Total int } `json:"meta"`
	}
	if err := json.Unmarshal(app.do(http.MethodGet, synonymsPath, "reader", nil).Body, &list); err != nil || list.Meta.Total < 150 {
		t.Fatalf("default rules: %d, %v", list.Meta.Total, err)
	}
	app.publish(t, map[string]any{"nome_servico": "Medicamentos gratuitos na farmácia municipal", "resumo": "Retire medicamentos da lista padronizada."})
	app.publish(t, map[string]any{"nome_servico": "Castração de cães e gatos", "resumo": "Esterilização gratuita."})
	app.publish(t, map[string]any{"nome_servico": "Reclamação de poluição sonora", "resumo": "Fiscalização de ruído."})
	tests := []struct{ q, want string }{
		{"remédio de graça", "Medicamentos gratuitos na farmácia municipal"},
		{"castrar cachorro", "Castração de cães e gatos"},
		{"som alto na madrugada", "Reclamação de poluição sonora"},
	}
	for _, tt := range tests {
		page := app.searchPage(t, url.Values{"q": {tt.q}, "mode": {"keyword"}})
		if len(page.Data) == 0 || page.Data[0].NomeServico != tt.want || len(page.Meta.Synonyms) == 0 {
			t.Errorf("%q ranks %q first, meta.synonyms %+v; want %q", tt.q, names(page), page.Meta.Synonyms, tt.want)
		}
	}
}
