package searchload

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTheStressCatalogMatchesMostServicesForEveryQueryWord checks what the
// stress catalog is for: every word of every query is in most Servicos, so
// keyword ranking meets thousands of matches.
func TestTheStressCatalogMatchesMostServicesForEveryQueryWord(t *testing.T) {
	t.Parallel()
	c, err := Build(Stress, "", 2000)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Servicos) != 2000 || len(c.Queries) < 40 {
		t.Fatalf("%d servicos, %d queries", len(c.Servicos), len(c.Queries))
	}
	has := map[string]int{}
	for _, s := range c.Servicos {
		seen := map[string]bool{}
		for _, w := range strings.Fields(strings.Join([]string{s.Nome, s.Resumo, s.Descricao, strings.Join(s.Documentos, " ")}, " ")) {
			if !seen[w] {
				seen[w] = true
				has[w]++
			}
		}
	}
	for _, q := range c.Queries {
		for _, w := range strings.Fields(q) {
			if has[w] < len(c.Servicos)/2 {
				t.Errorf("query %q: %q is in %d of %d servicos, want most", q, w, has[w], len(c.Servicos))
			}
		}
	}
	again, _ := Build(Stress, "", 2000)
	if again.Servicos[1999].Descricao != c.Servicos[1999].Descricao || !slices.Equal(again.Queries, c.Queries) {
		t.Fatal("two builds of the stress catalog differ; runs would not measure the same catalog")
	}
}

func TestTheRealisticCatalogIsTheRelevanceSetWithUnitNumbers(t *testing.T) {
	t.Parallel()
	c, err := Build(Realistic, filepath.Join("..", "..", ".."), 150)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Servicos) != 150 || len(c.Queries) < 40 {
		t.Fatalf("%d servicos, %d queries", len(c.Servicos), len(c.Queries))
	}
	if !strings.HasSuffix(c.Servicos[149].Nome, " - unidade 150") || c.Servicos[0].Resumo == "" {
		t.Fatalf("unexpected servico %+v", c.Servicos[149])
	}
	if _, err := Build("huge", "", 10); err == nil {
		t.Fatal("an unknown catalog was built")
	}
}

func TestTableListsEveryResult(t *testing.T) {
	t.Parallel()
	got := Table([]Result{{Catalog: Stress, Mode: "hybrid", Clients: 8, Requests: 5000, Rate: 500, P50: 12.5, P99: 40, Max: 60, Errors: 1}})
	if !strings.Contains(got, "| stress | hybrid | 8 | 5000 | 500 | 12.50 ms | 40.00 ms | 60.00 ms | 1 |") {
		t.Fatalf("table:\n%s", got)
	}
}
