package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/postgres"
)

// TestRankAgreesWithPostgresToTheBit ranks every document of a catalog for
// many queries both ways, the replica's ts_rank from the positions it
// loaded and Postgres's ts_rank of the stored tsvector, and requires the
// very same float4: the keyword ranking of candidates moved from one to
// the other, and a last-bit difference would reorder near ties. The
// catalog puts two words at every distance up to 102 apart (each distance
// weighs the pair differently) and mixes the fields, so every weight and
// repeated positions occur.
func TestRankAgreesWithPostgresToTheBit(t *testing.T) {
	t.Parallel()
	st, db := newStore(t)
	r := rand.New(rand.NewPCG(20, 26))
	words := strings.Fields(`certidão negativa débitos imposto predial iptu parcelamento
		matrícula escolar vacina poda árvore coleta lixo entulho iluminação pública buraco rua
		licença alvará funcionamento taxa segunda via boleto cadastro pedido serviço`)
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	for d := range 103 {
		mustCreate(t, st, fmt.Sprintf("Alvará %d", d), false, func(sv *catalog.Servico) {
			sv.Status, sv.Resumo, sv.DescricaoCompleta = 1, text(5), "alvará "+strings.Repeat("gato ", d)+"boleto "+text(20)
		})
	}
	for range 80 {
		mustCreate(t, st, text(3+r.IntN(4)), false, func(sv *catalog.Servico) {
			sv.Status, sv.Resumo, sv.DescricaoCompleta, sv.DocumentosNecessarios = 1, text(10+r.IntN(10)), text(30+r.IntN(40)), []string{text(3)}
		})
	}
	version, entries, err := st.LoadVectors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ix := catalog.NewVectorIndex()
	ix.Replace(version, 3, entries)
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	queries := []struct {
		text  string
		every bool
	}{
		{"alvará boleto", true}, {"boleto alvará gato", true}, {"iptu", true}, {"certidão negativa de débitos", true},
		{"certidão negativa de débitos", false}, {"poda de árvores na rua", false}, {"coleta lixo entulho", true},
		{"segunda via boleto iptu ", false}, {"licen", true}, {"matricula escolar vac", true}, {"taxa alvara func", false},
		{"servicos pedidos", true}, {"iluminacao publica", true},
	}
	// Eight operands, "iptu" both whole and as a prefix: which one ts_rank
	// keeps depends on Postgres's quicksort.
	if _, ok := ix.RankKeywords(version, termsFor(t, st, "segunda via boleto iptu"), false, ids, 10, 0); ok {
		t.Error("a query whose rank depends on how Postgres sorts its operands was ranked")
	}
	for _, q := range queries {
		terms := termsFor(t, st, q.text)
		page, ok := ix.RankKeywords(version, terms, q.every, ids, len(ids), 0)
		if !ok {
			t.Errorf("%q: the index would not rank it", q.text)
			continue
		}
		var want []struct {
			ID    string
			Score float32
		}
		err := db.Raw(`SELECT servico_id::text AS id, ts_rank(document, CAST(? AS tsquery)) AS score
FROM search_documents WHERE schema_version = ?`, postgres.TSQuery(terms, q.every), version).Scan(&want).Error
		if err != nil {
			t.Fatal(err)
		}
		got := make(map[string]float64, len(page))
		for _, h := range page {
			got[h.ID] = h.Score
		}
		differ := 0
		for _, w := range want {
			if g, ok := got[w.ID]; !ok || g != float64(w.Score) {
				differ++
				if differ <= 3 {
					t.Errorf("%q (every word %v), %s: ts_rank %v in Postgres, %v here", q.text, q.every, w.ID, w.Score, g)
				}
			}
		}
		if len(want) != len(entries) || differ > 0 {
			t.Errorf("%q: %d of %d scores differ", q.text, differ, len(want))
		}
	}
}
