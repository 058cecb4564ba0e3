package catalog

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// benchIndex is an index of 10,000 published Servicos with 384-dimension
// vectors and lexemes drawn from a small vocabulary, so a common word
// matches most of them (the stress catalog of issue 20).
func benchIndex(b *testing.B) (*VectorIndex, *rand.Rand) {
	b.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	vocabulary := make([]string, 80)
	for i := range vocabulary {
		vocabulary[i] = fmt.Sprintf("lex%02d", i)
	}
	entries := make([]VectorEntry, 10000)
	for i := range entries {
		e := VectorEntry{ID: fmt.Sprintf("%08d-0000-7000-8000-000000000000", i), Seq: int64(i + 1), Published: true,
			TemaGeral: "Tributos", OrgaoGestor: []string{"SMF"}, Embedding: randomUnit(r, 384)}
		for j, l := range vocabulary {
			if r.IntN(j+2) == 0 { // the first words are in most documents
				e.Lexemes = append(e.Lexemes, DocLexeme{Lexeme: l, Weight: "ABCD"[r.IntN(4)]})
			}
		}
		entries[i] = e
	}
	ix := NewVectorIndex()
	ix.Replace("v3", 384, entries)
	return ix, r
}

// BenchmarkSearchNearest is the semantic scan of hybrid search: 10,000
// vectors, the 200 best kept.
func BenchmarkSearchNearest(b *testing.B) {
	ix, r := benchIndex(b)
	query := randomUnit(r, 384)
	b.ReportAllocs()
	for b.Loop() {
		if ids, _ := ix.Nearest(query, SearchFilter{}, -1, 200, math.MaxInt); len(ids) != 200 {
			b.Fatalf("%d ids", len(ids))
		}
	}
}

// BenchmarkSearchNearestSparse is the same scan for a query of a lexical
// embedding: 20 nonzero dimensions of 384, as the hash provider gives a
// query of two words.
func BenchmarkSearchNearestSparse(b *testing.B) {
	ix, r := benchIndex(b)
	query := sparseUnit(r, 384, r.Perm(384)[:20])
	b.ReportAllocs()
	for b.Loop() {
		if ids, _ := ix.Nearest(query, SearchFilter{}, -1, 200, math.MaxInt); len(ids) != 200 {
			b.Fatalf("%d ids", len(ids))
		}
	}
}

// BenchmarkSearchKeywordCandidates picks the 200 keyword candidates of a
// query of two common words and a prefix among 10,000 Servicos.
func BenchmarkSearchKeywordCandidates(b *testing.B) {
	ix, _ := benchIndex(b)
	terms := []Match{{Lexeme: "lex00"}, {Any: []Match{{Lexeme: "lex01"}, {Lexeme: "lex02"}}}, {Lexeme: "lex0", Prefix: true}}
	b.ReportAllocs()
	for b.Loop() {
		if ids, total, ok := ix.KeywordCandidates("v3", terms, true, SearchFilter{}, 200); !ok || len(ids) != 200 || total < 1000 {
			b.Fatalf("%d ids of %d", len(ids), total)
		}
	}
}
