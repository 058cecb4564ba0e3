package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/postgres"
	"github.com/municipal-apis/platform/services/search-admin/internal/textnorm"
)

// keywordQuery asks for the first page of published matches of text in v2.
func keywordQuery(text string, filter catalog.SearchFilter) catalog.KeywordQuery {
	return catalog.KeywordQuery{Version: "v2", Terms: textnorm.Words(text), Filter: filter, Limit: 10}
}

// keywordNames runs a keyword search and returns the names it ranks.
func keywordNames(t *testing.T, st *postgres.Store, q catalog.KeywordQuery) []string {
	t.Helper()
	hits, _, err := st.KeywordSearch(context.Background(), q)
	if err != nil {
		t.Fatalf("keyword search %q: %v", q.Terms, err)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	servicos, err := st.ServicosByID(context.Background(), ids)
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
		{"typos are replaced by the known words trigram-similar to them", "certdao negatva de debitos",
			catalog.SearchFilter{}, []string{"Certidão negativa de débitos", "Certidão de óbito"}},
		{"a typo in the last word, a prefix, is corrected too", "debtos", catalog.SearchFilter{}, []string{"Certidão negativa de débitos"}},
		{"a word no Servico is near matches nothing", "xilofone", catalog.SearchFilter{}, []string{}},
		{"the tema filter keeps only its theme", "certidao", catalog.SearchFilter{TemaGeral: "Saúde"}, []string{"Certidão de óbito"}},
		{"agent-only services appear when asked for", "agentes", catalog.SearchFilter{IncludeAgentOnly: true}, []string{"Certidão para agentes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := keywordNames(t, st, keywordQuery(tt.text, tt.filter)); !slices.Equal(got, tt.want) {
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
		doc := catalog.SchemaV2.Document(renamed)
		doc.Embedding, doc.Model = []float32{0.6, -0.8, 0.125}, "test/model"
		return []catalog.Document{doc}, nil
	})
	if err != nil {
		t.Fatalf("rename: %v", err)
	}
	if got := keywordNames(t, st, keywordQuery("remocao de galhso", catalog.SearchFilter{})); !slices.Equal(got, []string{"Remoção de galhos"}) {
		t.Errorf("search with a typo in the new name = %q", got)
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
	for i := range 30 {
		mustCreate(t, st, "Certidão negativa "+strconv.Itoa(i), false, func(s *catalog.Servico) { s.Status = 1 })
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
				q := keywordQuery(text, catalog.SearchFilter{OrgaoGestor: "SMF"})
				raw, err := st.ExplainKeywordSearch(context.Background(), q, every)
				if err != nil {
					t.Fatal(err)
				}
				if cost, jit := planCost(t, raw); jit || cost >= limit {
					t.Errorf("plan costs %.0f (jit_above_cost %.0f), JIT %v", cost, limit, jit)
				}
				raw, err = st.ExplainCorrections(context.Background(), q)
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

func TestKeywordSearchMatchesEveryWordWhenThatFillsAPage(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	published := func(s *catalog.Servico) { s.Status = 1 }
	mustCreate(t, st, "Certidão negativa de débitos", false, published)
	mustCreate(t, st, "Certidão de óbito", false, published)
	mustCreate(t, st, "Nota fiscal negativa", false, published)
	tests := []struct {
		name        string
		minAllTerms int
		want        []string
	}{
		{"one match of every word fills a page of one", 1, []string{"Certidão negativa de débitos"}},
		{"fewer matches of every word than a page fall back to any word", 2,
			[]string{"Certidão negativa de débitos", "Certidão de óbito", "Nota fiscal negativa"}},
		{"zero always matches any word", 0, []string{"Certidão negativa de débitos", "Certidão de óbito", "Nota fiscal negativa"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := keywordQuery("certidão negativa", catalog.SearchFilter{})
			q.MinAllTerms = tt.minAllTerms
			got := keywordNames(t, st, q)
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Errorf("names = %q, want %q", got, want)
			}
		})
	}
}

// TestKeywordFiltersFollowTheServico changes what search filters on without
// rewriting the search documents (no indexer): the copies on the documents
// must follow at once, or a Servico taken back to draft would stay findable.
func TestKeywordFiltersFollowTheServico(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	sv := mustCreate(t, st, "Licença sanitária", false, func(s *catalog.Servico) { s.Status = 1 })
	search := func(filter catalog.SearchFilter) []string {
		return keywordNames(t, st, keywordQuery("licenca sanitaria", filter))
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
