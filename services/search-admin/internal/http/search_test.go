package http_test

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

var allModes = []string{catalog.ModeKeyword, catalog.ModeSemantic, catalog.ModeHybrid}

// publish creates a published Servico with the given members changed.
func (a *testApp) publish(t testing.TB, changes map[string]any) catalog.Servico {
	t.Helper()
	changes["status"] = catalog.StatusPublished
	return a.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", with(changes)).servico(t, http.StatusCreated)
}

func names(page catalog.SearchResult) []string {
	out := make([]string, len(page.Data))
	for i, h := range page.Data {
		out[i] = h.NomeServico
	}
	return out
}

func TestSearchIgnoresAccentsAndCase(t *testing.T) {
	t.Parallel()
	app := newAppPublishing(t,
		map[string]any{"nome_servico": "Certidão de Óbito", "resumo": "Registro do falecimento."},
		map[string]any{"nome_servico": "Poda de árvore", "resumo": "Galhos na fiação."},
	)
	for _, q := range []string{"certidao", "CERTIDÃO", "Certidao de obito", "certid", "ÓBITO"} {
		for _, mode := range []string{catalog.ModeKeyword, catalog.ModeHybrid} {
			t.Run(mode+" search for "+q+" finds the certidão", func(t *testing.T) {
				t.Parallel()
				page := app.searchPage(t, url.Values{"q": {q}, "mode": {mode}})
				if len(page.Data) == 0 || page.Data[0].NomeServico != "Certidão de Óbito" {
					t.Errorf("results %q", names(page))
				}
			})
		}
	}
}

// Invisible characters inside a word (a zero-width space, a soft hyphen,
// pasted from a web page) neither hide a Servico whose text holds them nor
// break the query that holds them: both sides read one word.
func TestInvisibleCharactersInsideWordsDoNotBreakSearch(t *testing.T) {
	t.Parallel()
	app := newAppPublishing(t,
		map[string]any{"nome_servico": "Marca\u00adção de con\u200bsulta", "resumo": "Agende na unidade."},
		map[string]any{"nome_servico": "Vacinação antirrábica", "resumo": "Cães e gatos."},
	)
	for q, want := range map[string]string{
		"marcacao de consulta":          "Marca\u00adção de con\u200bsulta",
		"consulta":                      "Marca\u00adção de con\u200bsulta",
		"vaci\u200bnação":               "Vacinação antirrábica",
		"\u202eantirr\u00adabica\u202c": "Vacinação antirrábica",
		"ga\u200btos":                   "Vacinação antirrábica",
		"unida\u200bde":                 "Marca\u00adção de con\u200bsulta",
	} {
		for _, mode := range []string{catalog.ModeKeyword, catalog.ModeHybrid} {
			page := app.searchPage(t, url.Values{"q": {q}, "mode": {mode}})
			if len(page.Data) == 0 || page.Data[0].NomeServico != want {
				t.Errorf("%s search for %q: results %q, want %q first", mode, q, names(page), want)
			}
		}
	}
}

func TestNameMatchesOutrankDescriptionMatches(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	app.publish(t, map[string]any{"nome_servico": "Atendimento geral", "descricao_completa": "Inclui vistoria de calçada."})
	app.publish(t, map[string]any{"nome_servico": "Vistoria de calçada", "resumo": "Peça a vistoria."})
	page := app.searchPage(t, url.Values{"q": {"vistoria"}, "mode": {"keyword"}})
	if got := names(page); !slices.Equal(got, []string{"Vistoria de calçada", "Atendimento geral"}) {
		t.Errorf("ranking %q", got)
	}
	if s := page.Data; s[0].Scores.Keyword == nil || s[1].Scores.Keyword == nil || *s[0].Scores.Keyword <= *s[1].Scores.Keyword {
		t.Errorf("keyword scores do not favour the name: %+v, %+v", s[0].Scores, s[1].Scores)
	}
}

func TestDraftsAndAgentOnlyEntriesStayHidden(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	app.publish(t, map[string]any{"nome_servico": "Vacinação contra a gripe"})
	app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", with(map[string]any{"nome_servico": "Vacinação rascunho"})).servico(t, http.StatusCreated)
	app.publish(t, map[string]any{"nome_servico": "Vacinação para agentes", "agents": map[string]any{"exclusive_for_agents": true, "tool_hint": "x"}})
	unpublished := app.publish(t, map[string]any{"nome_servico": "Vacinação despublicada"})
	app.do(http.MethodPost, "/api/v1/admin/services/"+unpublished.ID+"/unpublish", "catalog-admin", nil).servico(t, http.StatusOK)
	app.waitForVectors(t, 2)
	searchOnly := app.idp.Token(t, "reader", "search:read")
	for _, mode := range allModes {
		t.Run(mode+" search never shows drafts", func(t *testing.T) {
			t.Parallel()
			got := names(app.searchPage(t, url.Values{"q": {"vacinação gripe agentes rascunho despublicada"}, "mode": {mode}}))
			if slices.Contains(got, "Vacinação rascunho") || slices.Contains(got, "Vacinação despublicada") || slices.Contains(got, "Vacinação para agentes") {
				t.Errorf("results %q", got)
			}
		})
		t.Run(mode+" search shows agent-only entries when asked with search:services:read", func(t *testing.T) {
			t.Parallel()
			got := names(app.searchPage(t, url.Values{"q": {"vacinação agentes"}, "mode": {mode}, "include_agent_only": {"true"}}))
			if !slices.Contains(got, "Vacinação para agentes") || slices.Contains(got, "Vacinação rascunho") {
				t.Errorf("results %q", got)
			}
		})
	}
	t.Run("include_agent_only without search:services:read is 403", func(t *testing.T) {
		req := newRequest(http.MethodGet, "/api/v1/search?q=vacina&include_agent_only=true", "")
		req.Header.Set("Authorization", "Bearer "+searchOnly)
		if resp := app.serve(req); resp.Status != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "search:services:read") {
			t.Errorf("status %d, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
		}
	})
}

func TestSearchPaginationIsStable(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	for range 23 { // identical entries score alike: only the id orders them
		app.publish(t, map[string]any{"nome_servico": "Coleta de entulho"})
	}
	app.waitForVectors(t, 23)
	for _, mode := range allModes {
		t.Run(mode+" pages cover every hit once, in the same order every time", func(t *testing.T) {
			t.Parallel()
			var seen []string
			for page := 1; page <= 4; page++ {
				p := app.searchPage(t, url.Values{"q": {"coleta de entulho"}, "mode": {mode}, "per_page": {"7"}, "page": {strconv.Itoa(page)}})
				again := app.searchPage(t, url.Values{"q": {"coleta de entulho"}, "mode": {mode}, "per_page": {"7"}, "page": {strconv.Itoa(page)}})
				if p.Meta.Total != 23 || p.Meta.PerPage != 7 || p.Meta.Page != page || !slices.Equal(ids(p), ids(again)) {
					t.Fatalf("page %d: meta %+v, repeat differs %v", page, p.Meta, !slices.Equal(ids(p), ids(again)))
				}
				seen = append(seen, ids(p)...)
			}
			sorted := slices.Clone(seen)
			slices.Sort(sorted)
			if len(seen) != 23 || len(slices.Compact(sorted)) != 23 {
				t.Errorf("pages returned %d ids, %d distinct", len(seen), len(slices.Compact(sorted)))
			}
		})
	}
}

func TestSearchFiltersCombine(t *testing.T) {
	t.Parallel()
	app := newAppPublishing(t,
		map[string]any{"nome_servico": "Licença A", "tema_geral": "Meio ambiente", "orgao_gestor": []string{"SMAC"}},
		map[string]any{"nome_servico": "Licença B", "tema_geral": "Meio ambiente", "orgao_gestor": []string{"SMU", "SMAC"}},
		map[string]any{"nome_servico": "Licença C", "tema_geral": "Licenciamento", "orgao_gestor": []string{"SMU"}},
	)
	tests := []struct {
		name   string
		filter url.Values
		want   []string
	}{
		{"no filter finds all", url.Values{}, []string{"Licença A", "Licença B", "Licença C"}},
		{"tema_geral alone", url.Values{"tema_geral": {"Meio ambiente"}}, []string{"Licença A", "Licença B"}},
		{"orgao_gestor alone matches one item of the array", url.Values{"orgao_gestor": {"SMU"}}, []string{"Licença B", "Licença C"}},
		{"both filters narrow together", url.Values{"tema_geral": {"Meio ambiente"}, "orgao_gestor": {"SMU"}}, []string{"Licença B"}},
		{"filters that exclude each other find nothing", url.Values{"tema_geral": {"Licenciamento"}, "orgao_gestor": {"SMAC"}}, nil},
	}
	for _, tt := range tests {
		for _, mode := range allModes {
			t.Run(mode+" "+tt.name, func(t *testing.T) {
				t.Parallel()
				q := url.Values{"q": {"licença"}, "mode": {mode}}
				for k, v := range tt.filter {
					q[k] = v
				}
				got := names(app.searchPage(t, q))
				slices.Sort(got)
				if !slices.Equal(got, tt.want) {
					t.Errorf("results %q, want %q", got, tt.want)
				}
			})
		}
	}
}

func TestSearchRefusesBadParametersAndSurvivesHostileText(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	app.publish(t, map[string]any{"nome_servico": "Alvará de funcionamento"})
	resp := app.do(http.MethodGet, "/api/v1/search?mode=fuzzy&page=0&per_page=x&q="+strings.Repeat("a", 201)+"&sort=name&include_agent_only=maybe", "reader", nil)
	if resp.Status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, body %s", resp.Status, resp.Body)
	}
	var fields []string
	for _, e := range resp.problem(t).Errors {
		fields = append(fields, e.Field)
	}
	slices.Sort(fields)
	if want := []string{"include_agent_only", "mode", "page", "per_page", "q", "sort"}; !slices.Equal(fields, want) {
		t.Errorf("violations on %q, want all of %q", fields, want)
	}
	if resp := app.do(http.MethodGet, "/api/v1/search", "reader", nil); resp.Status != http.StatusUnprocessableEntity {
		t.Errorf("a search without q answered %d", resp.Status)
	}
	// A mode given empty is no mode: a 422, as an empty page is, not the default.
	if resp := app.do(http.MethodGet, "/api/v1/search?q=alvara&mode=", "reader", nil); resp.Status != http.StatusUnprocessableEntity {
		t.Errorf("a search with mode= answered %d %s", resp.Status, resp.Body)
	} else if errs := resp.problem(t).Errors; len(errs) != 1 || errs[0].Field != "mode" {
		t.Errorf("a search with mode=: violations %+v, want one on mode", errs)
	}
	if page := app.searchPage(t, url.Values{"q": {"alvara"}, "per_page": {"500"}}); page.Meta.PerPage != 100 || page.Meta.Mode != "hybrid" {
		t.Errorf("per_page not clamped or mode not hybrid by default: %+v", page.Meta)
	}
	for _, q := range []string{`'; DROP TABLE servicos; --`, `a & b | !c`, `(alvará:*)`, `"funcionamento"`, `\`, `<->`, `🚌 alvará`, `中文 검색`, `a:* & !`, "alvará\u200b"} {
		for _, mode := range allModes {
			t.Run(mode+" search for "+q+" answers 200", func(t *testing.T) {
				t.Parallel()
				app.searchPage(t, url.Values{"q": {q}, "mode": {mode}})
			})
		}
	}
	t.Run("hits carry scores but never the embedding", func(t *testing.T) {
		resp := app.do(http.MethodGet, "/api/v1/search?q=alvara&mode=hybrid", "reader", nil)
		if !bytes.Contains(resp.Body, []byte(`"scores":{"keyword":`)) || bytes.Contains(resp.Body, []byte(`"embedding"`)) || bytes.Contains(resp.Body, []byte(`"search_content"`)) {
			t.Errorf("body %s", resp.Body)
		}
	})
}

func ids(p catalog.SearchResult) []string {
	out := make([]string, len(p.Data))
	for i, h := range p.Data {
		out[i] = h.ID
	}
	return out
}

// TestSearchTextNeverBecomesQuerySyntax sends letters that unaccent folds
// into tsquery operators (ː → ":", ʼ → "'"): no query may answer 500 or
// turn a word into a weight filter.
func TestSearchTextNeverBecomesQuerySyntax(t *testing.T) {
	t.Parallel()
	app := newAppPublishing(t,
		map[string]any{"nome_servico": "Poda de árvore", "resumo": "Corte de galhos."},
		map[string]any{"nome_servico": "Atendimento ao cidadão", "resumo": "Pedidos de poda de árvore em via pública."},
	)
	for _, q := range []string{"alvaráː", "ːː", "ː", "dʼágua", "ʹʻʼʽˈː", "árvoreːa", "podaːa:*", "árvoreːb poda", "a ː b ʼ c", "poda ːaːbːcːd"} {
		for _, mode := range allModes {
			t.Run(mode+" search for "+q+" answers 200", func(t *testing.T) {
				app.searchPage(t, url.Values{"q": {q}, "mode": {mode}})
			})
		}
	}
	t.Run("a folded colon is no weight filter", func(t *testing.T) {
		// "árvoreːb" folds to "arvore:b", which to_tsquery reads as "árvore
		// in a B field": the service with both words in its name (A) was
		// left out of the every-word pass that fills this page of one.
		page := app.searchPage(t, url.Values{"q": {"árvoreːb poda"}, "mode": {"keyword"}, "per_page": {"1"}})
		if got := names(page); !slices.Equal(got, []string{"Poda de árvore"}) {
			t.Errorf("results %q, want the service named for both words", got)
		}
	})
}

// TestLastWordIsAPrefixOnlyWhileIncomplete: a complete last word used as a
// prefix ("mato", stem mat, as mat:*) matched "matrícula".
func TestLastWordIsAPrefixOnlyWhileIncomplete(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	app.publish(t, map[string]any{"nome_servico": "Matrícula escolar", "resumo": "Vaga na rede municipal."})
	app.publish(t, map[string]any{"nome_servico": "Denúncia de mato alto", "resumo": "Terreno com mato alto."})
	tests := []struct {
		name, q string
		want    []string
	}{
		{"a known word is complete", "terreno com mato", []string{"Denúncia de mato alto"}},
		{"an unknown last word being typed is a prefix", "matr", []string{"Matrícula escolar"}},
		{"a word followed by a space is complete", "matr ", nil},
		{"a last word of two letters is no prefix", "ma", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := names(app.searchPage(t, url.Values{"q": {tt.q}, "mode": {"keyword"}}))
			if tt.want != nil && !slices.Equal(got, tt.want) || tt.want == nil && slices.Contains(got, "Matrícula escolar") {
				t.Errorf("results for %q = %q, want %q", tt.q, got, tt.want)
			}
		})
	}
}

// TestOnlyWordsThatAreNoWordsAreCorrected: a Portuguese word the catalog
// does not contain ("bombeiro", firefighter) was "corrected" to the nearest
// catalog word ("bueiro", storm drain) and found an unrelated service.
func TestOnlyWordsThatAreNoWordsAreCorrected(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	app.publish(t, map[string]any{"nome_servico": "Desobstrução de bueiro", "resumo": "Limpeza de ralos na rua."})
	tests := []struct {
		name, q string
		want    []string
	}{
		{"a real word out of the catalog is never rewritten", "bombeiro ", nil},
		{"a misspelling is corrected", "boeiro ", []string{"Desobstrução de bueiro"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := names(app.searchPage(t, url.Values{"q": {tt.q}, "mode": {"keyword"}})); !slices.Equal(got, tt.want) {
				t.Errorf("results for %q = %q, want %q", tt.q, got, tt.want)
			}
		})
	}
}

// TestAWordFindsItsOtherNumberAndLostAccents: the stemmer leaves some
// singulars and plurals apart ("inscrição" inscrica, "inscrições"
// inscrico; "animal", "animais" anim); the lexicon gives the other number
// and the accents a citizen left out.
func TestAWordFindsItsOtherNumberAndLostAccents(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	app.publish(t, map[string]any{"nome_servico": "Inscrição no cadastro de feirantes", "resumo": "Cadastro anual."})
	app.publish(t, map[string]any{"nome_servico": "Resgate de animais feridos", "resumo": "Atendimento veterinário."})
	tests := []struct{ q, want string }{
		{"inscricoes ", "Inscrição no cadastro de feirantes"},
		{"inscrições ", "Inscrição no cadastro de feirantes"},
		{"animal ferido ", "Resgate de animais feridos"},
	}
	for _, tt := range tests {
		t.Run(tt.q+"finds "+tt.want, func(t *testing.T) {
			if got := names(app.searchPage(t, url.Values{"q": {tt.q}, "mode": {"keyword"}})); !slices.Equal(got, []string{tt.want}) {
				t.Errorf("results for %q = %q", tt.q, got)
			}
		})
	}
}

// TestAWriteIsSearchableByKeywordAsSoonAsItIsAnswered searches right after
// each write, without waiting: the replica that answered the write has
// already applied it to the index its keyword ranking reads, so a create,
// a rename, an unpublish and a delete each show in the next search.
func TestAWriteIsSearchableByKeywordAsSoonAsItIsAnswered(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	search := func(q string) []string {
		return names(app.searchPage(t, url.Values{"q": {q}, "mode": {catalog.ModeKeyword}}))
	}
	sv := app.publish(t, map[string]any{"nome_servico": "Feira de artesanato"})
	if got := search("artesanato"); !slices.Equal(got, []string{"Feira de artesanato"}) {
		t.Fatalf("right after the create: %q", got)
	}
	app.do(http.MethodPut, "/api/v1/admin/services/"+sv.ID, "catalog-admin", with(map[string]any{"nome_servico": "Poda de árvores", "status": 1})).servico(t, http.StatusOK)
	if got, old := search("poda"), search("artesanato"); !slices.Equal(got, []string{"Poda de árvores"}) || len(old) != 0 {
		t.Fatalf("right after the rename: new name %q, old name %q", got, old)
	}
	app.do(http.MethodPost, "/api/v1/admin/services/"+sv.ID+"/unpublish", "catalog-admin", nil).servico(t, http.StatusOK)
	if got := search("poda"); len(got) != 0 {
		t.Fatalf("right after the unpublish: %q", got)
	}
	app.do(http.MethodPost, "/api/v1/admin/services/"+sv.ID+"/publish", "catalog-admin", nil).servico(t, http.StatusOK)
	if got := search("poda"); !slices.Equal(got, []string{"Poda de árvores"}) {
		t.Fatalf("right after the publish: %q", got)
	}
	if r := app.do(http.MethodDelete, "/api/v1/admin/services/"+sv.ID, "catalog-admin", nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d", r.Status)
	}
	if got := search("poda"); len(got) != 0 {
		t.Fatalf("right after the delete: %q", got)
	}
}
