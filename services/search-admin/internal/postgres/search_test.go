package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/postgres"
	"github.com/municipal-apis/platform/services/search-admin/internal/textnorm"
)

// keywordQuery asks for the first page of published matches of any word of
// text in v3, the last word a prefix, as search builds it.
func keywordQuery(t *testing.T, st *postgres.Store, text string, filter catalog.SearchFilter) catalog.KeywordQuery {
	t.Helper()
	return catalog.KeywordQuery{Version: "v3", Terms: termsFor(t, st, text), Filter: filter, Limit: 10}
}

// termsFor makes one term of each word of text that has lexemes.
func termsFor(t *testing.T, st *postgres.Store, text string) []catalog.Match {
	t.Helper()
	var terms []catalog.Match
	for _, w := range wordTerms(t, st, text) {
		if !w.Match.IsZero() {
			terms = append(terms, w.Match)
		}
	}
	return terms
}

// wordTerms pairs each word of text with its term in v3 (empty for a stop
// word): the folded stems (the last word's as a prefix unless text ends in
// a space), or the folded stems of the word as written.
func wordTerms(t *testing.T, st *postgres.Store, text string) []catalog.CorrectionWord {
	t.Helper()
	tokens := textnorm.Tokens(text)
	var q catalog.LexemeQuery
	for _, tok := range tokens {
		q.Texts = append(q.Texts, catalog.LexemeText{Text: textnorm.Fold(tok)}, catalog.LexemeText{Text: tok, StemAccents: true})
	}
	found, err := st.Lexemes(context.Background(), q)
	if err != nil {
		t.Fatalf("lexemes of %q: %v", tokens, err)
	}
	out := make([]catalog.CorrectionWord, len(tokens))
	for i, tok := range tokens {
		out[i].Word = textnorm.Fold(tok)
		var alts []catalog.Match
		for j, l := range found[2*i : 2*i+2] {
			var all []catalog.Match
			for _, lexeme := range l.Lexemes {
				all = append(all, catalog.Match{Lexeme: lexeme, Prefix: j == 0 && i == len(tokens)-1 && !strings.HasSuffix(text, " ")})
			}
			switch len(all) {
			case 0:
			case 1:
				alts = append(alts, all[0])
			default:
				alts = append(alts, catalog.Match{All: all})
			}
		}
		switch len(alts) {
		case 0:
		case 1:
			out[i].Match = alts[0]
		default:
			out[i].Match = catalog.Match{Any: alts}
		}
	}
	return out
}

// keywordNames runs a keyword search and returns the names it ranks.
func keywordNames(t *testing.T, st *postgres.Store, q catalog.KeywordQuery) []string {
	t.Helper()
	hits, _, err := st.KeywordSearch(context.Background(), q)
	if err != nil {
		t.Fatalf("keyword search %v: %v", q.Terms, err)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	servicos, _, err := st.ServicosByID(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(hits))
	for _, h := range hits {
		for _, s := range servicos {
			if s.ID == h.ID {
				names = append(names, s.NomeServico)
			}
		}
	}
	return names
}

func TestKeywordSearchRanksTheFilteredCandidates(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	published := func(s *catalog.Servico) { s.Status = 1 }
	mustCreate(t, st, "Certidão negativa de débitos", false, published)
	mustCreate(t, st, "Certidão de óbito", false, func(s *catalog.Servico) { s.Status, s.TemaGeral = 1, "Saúde" })
	mustCreate(t, st, "Certidão para agentes", false, func(s *catalog.Servico) {
		s.Status, s.Agents = 1, &catalog.Agents{ExclusiveForAgents: true}
	})
	mustCreate(t, st, "Certidão em rascunho", false, nil)
	tests := []struct {
		name   string
		text   string
		filter catalog.SearchFilter
		want   []string
	}{
		{"a full-text query ranks the best match first and hides drafts and agent-only services",
			"certidão negativa", catalog.SearchFilter{}, []string{"Certidão negativa de débitos", "Certidão de óbito"}},
		{"the last word matches as a prefix", "certidao negat", catalog.SearchFilter{}, []string{"Certidão negativa de débitos", "Certidão de óbito"}},
		{"a word no Servico has matches nothing", "xilofone", catalog.SearchFilter{}, []string{}},
		{"the tema filter keeps only its theme", "certidao", catalog.SearchFilter{TemaGeral: "Saúde"}, []string{"Certidão de óbito"}},
		{"agent-only services appear when asked for", "agentes", catalog.SearchFilter{IncludeAgentOnly: true}, []string{"Certidão para agentes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := keywordNames(t, st, keywordQuery(t, st, tt.text, tt.filter)); !slices.Equal(got, tt.want) {
				t.Errorf("names = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTextSearchFollowsRenames(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	sv := mustCreate(t, st, "Poda de árvore", false, func(s *catalog.Servico) { s.Status = 1 })
	var renamed *catalog.Servico
	_, err := st.Update(context.Background(), sv.ID, func(s *catalog.Servico) {
		s.NomeServico, s.Resumo = "Remoção de galhos", "Galhos caídos na calçada"
		renamed = s
	}, func(catalog.WriteVersions) ([]catalog.Document, error) {
		doc := catalog.SchemaV3.Document(renamed)
		doc.Embedding, doc.Model = []float32{0.6, -0.8, 0.125}, "test/model"
		return []catalog.Document{doc}, nil
	})
	if err != nil {
		t.Fatalf("rename: %v", err)
	}
	if got := keywordNames(t, st, keywordQuery(t, st, "remocao de galhos", catalog.SearchFilter{})); !slices.Equal(got, []string{"Remoção de galhos"}) {
		t.Errorf("search for the new name = %q", got)
	}
	if got := correctedWords(t, st, "galhso"); !slices.Equal(got, []string{"galhos"}) {
		t.Errorf("a typo of a word of the new name is corrected to %q", got)
	}
	page, err := st.List(context.Background(), catalog.Filter{Text: "REMOÇÃO", Page: 1, PerPage: 10})
	if err != nil || len(page.Data) != 1 {
		t.Fatalf("list by the new name = %+v, %v", page.Data, err)
	}
	page, err = st.List(context.Background(), catalog.Filter{Text: "arvore", Page: 1, PerPage: 10})
	if err != nil || len(page.Data) != 0 {
		t.Errorf("list by the old name = %+v, %v", page.Data, err)
	}
}

// TestKeywordSearchPlanIsNotJITCompiled guards against planner switches:
// an enable_* = off adds 1e10 to the cost of a plan that cannot avoid the
// disabled node (enable_nestloop = off here: the filter lookup is a
// nested loop), Postgres then JIT-compiles the query, and a search of a
// few milliseconds takes hundreds.
func TestKeywordSearchPlanIsNotJITCompiled(t *testing.T) {
	t.Parallel()
	st, db := newStore(t)
	var ids []string
	for i := range 30 {
		ids = append(ids, mustCreate(t, st, "Certidão negativa "+strconv.Itoa(i), false, func(s *catalog.Servico) { s.Status = 1 }).ID)
	}
	if err := db.Exec("ANALYZE servicos, search_documents").Error; err != nil {
		t.Fatal(err)
	}
	limit := jitAboveCost(t, db)
	for _, text := range []string{"certidao negativa de debitos", "de", "certdao", "zzz qqq"} {
		for _, every := range []bool{true, false} {
			name := fmt.Sprintf("the plan for %q matching every word=%v stays below jit_above_cost", text, every)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				q := keywordQuery(t, st, text, catalog.SearchFilter{OrgaoGestor: "SMF"})
				q.Every = every
				if len(q.Terms) == 0 {
					q.Terms = []catalog.Match{{Lexeme: "qqq"}}
				}
				raw, err := st.ExplainKeywordSearch(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				if cost, jit := planCost(t, raw); jit || cost >= limit {
					t.Errorf("plan costs %.0f (jit_above_cost %.0f), JIT %v", cost, limit, jit)
				}
				// Ranking candidates reads only them (by primary key, or a scan
				// of a table this small): through the GIN index it would read
				// every match, as ranking them all does.
				raw, err = st.ExplainRankKeywordCandidates(context.Background(), q, ids)
				if err != nil {
					t.Fatal(err)
				}
				if cost, jit := planCost(t, raw); jit || cost >= limit {
					t.Errorf("candidate ranking plan costs %.0f (jit_above_cost %.0f), JIT %v", cost, limit, jit)
				}
				if strings.Contains(raw, "search_documents_document_idx") {
					t.Errorf("candidate ranking reads every match through the full-text index:\n%s", raw)
				}
				cq := correctionQuery(t, st, text)
				if len(cq.Words) == 0 {
					return
				}
				raw, err = st.ExplainCorrections(context.Background(), cq)
				if err != nil {
					t.Fatal(err)
				}
				if cost, jit := planCost(t, raw); jit || cost >= limit {
					t.Errorf("typo-correction plan costs %.0f (jit_above_cost %.0f), JIT %v", cost, limit, jit)
				}
			})
		}
	}
}

// planCost decodes an EXPLAIN (FORMAT JSON) answer: the plan's total cost
// and whether Postgres JIT-compiled it.
func planCost(t *testing.T, raw string) (float64, bool) {
	t.Helper()
	var plans []struct {
		Plan struct {
			TotalCost float64 `json:"Total Cost"`
		}
		JIT *json.RawMessage
	}
	if err := json.Unmarshal([]byte(raw), &plans); err != nil || len(plans) != 1 {
		t.Fatalf("decode plan %s: %v", raw, err)
	}
	return plans[0].Plan.TotalCost, plans[0].JIT != nil
}

// jitAboveCost reads the cost above which Postgres JIT-compiles a query.
func jitAboveCost(t *testing.T, db *gorm.DB) float64 {
	t.Helper()
	var limit float64
	if err := db.Raw("SELECT current_setting('jit_above_cost')::float8").Row().Scan(&limit); err != nil {
		t.Fatal(err)
	}
	return limit
}

func TestKeywordSearchMatchesEveryWordOrAnyWord(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	published := func(s *catalog.Servico) { s.Status = 1 }
	mustCreate(t, st, "Certidão negativa de débitos", false, published)
	mustCreate(t, st, "Certidão de óbito", false, published)
	mustCreate(t, st, "Nota fiscal negativa", false, published)
	tests := []struct {
		name  string
		every bool
		want  []string
	}{
		{"every word finds the Servicos that have them all", true, []string{"Certidão negativa de débitos"}},
		{"any word finds the Servicos that have one", false, []string{"Certidão de óbito", "Certidão negativa de débitos", "Nota fiscal negativa"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := keywordQuery(t, st, "certidão negativa", catalog.SearchFilter{})
			q.Every = tt.every
			got := keywordNames(t, st, q)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("names = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCorrectionsReplaceOnlyWordsNoDocumentMatches(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	mustCreate(t, st, "Certidão negativa de débitos", false, func(s *catalog.Servico) { s.Status = 1 })
	tests := []struct {
		name, text string
		want       []string
	}{
		{"typos are replaced by the known words trigram-similar to them", "certdao negatva", []string{"certidao", "negativa"}},
		{"a typo in the last word, a prefix, is corrected too", "debtos", []string{"debitos"}},
		{"a word some document matches is kept as it is", "certidao", nil},
		{"a word no known word is near gets nothing", "xilofone", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := correctedWords(t, st, tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("corrections of %q = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// correctionQuery asks for the corrections of every word of text in v2.
func correctionQuery(t *testing.T, st *postgres.Store, text string) catalog.CorrectionQuery {
	t.Helper()
	q := catalog.CorrectionQuery{Version: "v3", StemAccents: true}
	for _, w := range wordTerms(t, st, text) {
		if !w.Match.IsZero() {
			q.Words = append(q.Words, w)
		}
	}
	return q
}

// correctedWords returns the corrections of the words of text, in order.
func correctedWords(t *testing.T, st *postgres.Store, text string) []string {
	t.Helper()
	corrections, err := st.Corrections(context.Background(), correctionQuery(t, st, text))
	if err != nil {
		t.Fatalf("corrections of %q: %v", text, err)
	}
	var out []string
	for _, c := range corrections {
		out = append(out, c.Word)
	}
	return out
}

// TestKeywordFiltersFollowTheServico changes what search filters on without
// rewriting the search documents (no indexer): the copies on the documents
// must follow at once, or a Servico taken back to draft would stay findable.
func TestKeywordFiltersFollowTheServico(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	sv := mustCreate(t, st, "Licença sanitária", false, func(s *catalog.Servico) { s.Status = 1 })
	search := func(filter catalog.SearchFilter) []string {
		return keywordNames(t, st, keywordQuery(t, st, "licenca sanitaria", filter))
	}
	if got := search(catalog.SearchFilter{TemaGeral: "Tributos"}); len(got) != 1 {
		t.Fatalf("published servico not found: %q", got)
	}
	edits := []struct {
		name   string
		edit   func(*catalog.Servico)
		filter catalog.SearchFilter
		want   int
	}{
		{"a new tema is filtered on", func(s *catalog.Servico) { s.TemaGeral = "Saúde" }, catalog.SearchFilter{TemaGeral: "Saúde"}, 1},
		{"the old tema no longer matches", func(*catalog.Servico) {}, catalog.SearchFilter{TemaGeral: "Tributos"}, 0},
		{"a new orgao is filtered on", func(s *catalog.Servico) { s.OrgaoGestor = []string{"SMS"} }, catalog.SearchFilter{OrgaoGestor: "SMS"}, 1},
		{"agent-only hides it from the public", func(s *catalog.Servico) { s.Agents = &catalog.Agents{ExclusiveForAgents: true} },
			catalog.SearchFilter{}, 0},
		{"agent-only still shows it to agents", func(*catalog.Servico) {}, catalog.SearchFilter{IncludeAgentOnly: true}, 1},
		{"back to draft hides it from everyone", func(s *catalog.Servico) { s.Status = 0 }, catalog.SearchFilter{IncludeAgentOnly: true}, 0},
	}
	for _, e := range edits {
		if _, err := st.Update(context.Background(), sv.ID, e.edit, nil); err != nil {
			t.Fatalf("%s: update: %v", e.name, err)
		}
		if got := search(e.filter); len(got) != e.want {
			t.Errorf("%s: found %q, want %d hits", e.name, got, e.want)
		}
	}
}

func TestTSQueryQuotesLexemesAndDropsAnythingElse(t *testing.T) {
	t.Parallel()
	lex := func(s string) catalog.Match { return catalog.Match{Lexeme: s} }
	tests := []struct {
		name  string
		terms []catalog.Match
		every bool
		want  string
	}{
		{"every term is AND-ed, the prefix marked", []catalog.Match{lex("certidao"), {Lexeme: "neg", Prefix: true}}, true, "'certidao' & 'neg':*"},
		{"any term is OR-ed", []catalog.Match{lex("a1"), lex("b2")}, false, "'a1' | 'b2'"},
		{"alternatives are OR-ed and the lexemes of one AND-ed", []catalog.Match{{Any: []catalog.Match{{All: []catalog.Match{lex("x"), lex("y")}}, lex("z")}}}, true, "(('x' & 'y') | 'z')"},
		{"nested matches keep their grouping", []catalog.Match{{All: []catalog.Match{{Any: []catalog.Match{lex("a"), lex("b")}}, lex("c")}}, lex("d")}, false, "(('a' | 'b') & 'c') | 'd'"},
		{"a lexeme with tsquery syntax is left out", []catalog.Match{lex("a:b"), lex("d'x"), lex("ok")}, true, "'ok'"},
		{"a lexeme with a space or a backslash is left out", []catalog.Match{{All: []catalog.Match{lex("a b"), lex(`a\`)}}}, true, ""},
		{"a part left empty takes its parentheses with it", []catalog.Match{{Any: []catalog.Match{lex("a:b"), lex("ok")}}}, true, "'ok'"},
		{"accented letters and combining marks are kept", []catalog.Match{{All: []catalog.Match{lex("ação"), lex("a\u0301")}}}, true, "('ação' & 'a\u0301')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := postgres.TSQuery(tt.terms, tt.every); got != tt.want {
				t.Errorf("tsquery = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestHostileTextBuildsQueriesPostgresAccepts runs text made of letters
// that unaccent folds into tsquery operators through the whole builder:
// lexemes, correction lookup and both passes must run without an error.
func TestHostileTextBuildsQueriesPostgresAccepts(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	mustCreate(t, st, "Poda de árvore", false, func(s *catalog.Servico) { s.Status = 1 })
	for _, text := range []string{"árvoreːb", "ːː podaːa", "dʼágua", "ʹʻʼʽˈː", "a ː b ʼ c", "x‖y ʼʼ ʻʻ", "poda ːaːbːcːd"} {
		t.Run(text, func(t *testing.T) {
			t.Parallel()
			for _, every := range []bool{true, false} {
				q := keywordQuery(t, st, text, catalog.SearchFilter{})
				q.Every = every
				if _, _, err := st.KeywordSearch(context.Background(), q); err != nil {
					t.Errorf("keyword search (every=%v): %v", every, err)
				}
			}
			if _, err := st.Corrections(context.Background(), correctionQuery(t, st, text)); err != nil {
				t.Errorf("corrections: %v", err)
			}
		})
	}
}

// TestEveryInflectionOfAnAccentedWordMeetsItsStem: folding before stemming
// leaves "vacinação" as vacinaca and "vacinações" as vacinaco, so neither
// finds the other; v3 documents also hold the stems of the accented words.
func TestEveryInflectionOfAnAccentedWordMeetsItsStem(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	mustCreate(t, st, "Vacinação contra a gripe", false, func(s *catalog.Servico) { s.Status = 1 })
	mustCreate(t, st, "Avaliações de imóveis", false, func(s *catalog.Servico) { s.Status = 1 })
	tests := []struct{ text, want string }{
		{"vacinações ", "Vacinação contra a gripe"},
		{"vacinas ", "Vacinação contra a gripe"},
		{"vacinar ", "Vacinação contra a gripe"},
		{"avaliação ", "Avaliações de imóveis"},
	}
	for _, tt := range tests {
		t.Run(tt.text+"finds "+tt.want, func(t *testing.T) {
			t.Parallel()
			q := keywordQuery(t, st, tt.text, catalog.SearchFilter{})
			q.Every = true
			if got := keywordNames(t, st, q); !slices.Equal(got, []string{tt.want}) {
				t.Errorf("names = %q", got)
			}
		})
	}
}

// TestServicosByIDReadsTheSettingsOfItsSnapshot: search loads its page and
// checks the settings it ranked in with one statement, and still learns
// them when the page is empty or every hit was deleted meanwhile.
func TestServicosByIDReadsTheSettingsOfItsSnapshot(t *testing.T) {
	t.Parallel()
	st, db := newStore(t)
	sv := mustCreate(t, st, "Poda de árvores", false, nil)
	before, err := st.SearchSettings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(`UPDATE search_settings SET current_version = 'v1'`).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(`INSERT INTO search_synonyms (id, synonyms, autor, created_at, last_update) VALUES (gen_random_uuid(), '["poda","corte"]', 'test', 1, 1)`).Error; err != nil {
		t.Fatal(err)
	}
	want := catalog.SearchSettings{Version: "v1", SynonymsRevision: before.SynonymsRevision + 1}
	tests := []struct {
		name  string
		ids   []string
		found int
	}{
		{"a page", []string{sv.ID}, 1},
		{"an empty page", nil, 0},
		{"a page deleted meanwhile", []string{"01900000-0000-7000-8000-000000000000"}, 0},
	}
	for _, tt := range tests {
		found, settings, err := st.ServicosByID(context.Background(), tt.ids)
		if err != nil {
			t.Fatal(err)
		}
		if settings != want || len(found) != tt.found {
			t.Errorf("%s: %d servicos, settings %+v, want %d and %+v", tt.name, len(found), settings, tt.found, want)
		}
	}
}
