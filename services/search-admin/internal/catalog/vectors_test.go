package catalog

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// randomUnit returns a random L2-normalized vector.
func randomUnit(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	var sum float32
	for i := range v {
		v[i] = float32(r.NormFloat64())
		sum += v[i] * v[i]
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(float64(sum)))
	}
	return v
}

func TestNearestAgreesWithABruteForceRanking(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	const dims = 16
	ix := NewVectorIndex()
	var entries []VectorEntry
	for i := range 300 {
		entries = append(entries, VectorEntry{ID: fmt.Sprintf("id-%03d", i), Seq: int64(i + 1), Published: i%7 != 0,
			AgentOnly: i%11 == 0, TemaGeral: []string{"Saúde", "Educação"}[i%2], OrgaoGestor: []string{"SMS"}, Embedding: randomUnit(r, dims)})
	}
	ix.Replace("v2", dims, entries)
	query := randomUnit(r, dims)
	tests := []struct {
		name   string
		filter SearchFilter
		admit  func(VectorEntry) bool
	}{
		{"without filters, published and not agent-only", SearchFilter{}, func(e VectorEntry) bool { return e.Published && !e.AgentOnly }},
		{"with agent-only entries", SearchFilter{IncludeAgentOnly: true}, func(e VectorEntry) bool { return e.Published }},
		{"of one tema_geral", SearchFilter{TemaGeral: "Saúde"}, func(e VectorEntry) bool { return e.Published && !e.AgentOnly && e.TemaGeral == "Saúde" }},
		{"of an orgao_gestor nobody has", SearchFilter{OrgaoGestor: "SME"}, func(VectorEntry) bool { return false }},
	}
	for _, tt := range tests {
		t.Run("the ten nearest "+tt.name+" are the brute-force top ten", func(t *testing.T) {
			var want []ScoredID
			for _, e := range entries {
				if s := dot(query, e.Embedding); tt.admit(e) && s >= 0 {
					want = append(want, ScoredID{ID: e.ID, Score: float64(s)})
				}
			}
			sort.Slice(want, func(i, j int) bool { return want[i].Score > want[j].Score })
			got, total := ix.Nearest(query, tt.filter, 0, 10, math.MaxInt)
			if total != len(want) || !slices.Equal(got, want[:min(10, len(want))]) {
				t.Errorf("got %v (total %d), want %v (total %d)", got, total, want[:min(10, len(want))], len(want))
			}
		})
	}
}

func TestApplyKeepsTheIndexAndItsFingerprintExact(t *testing.T) {
	t.Parallel()
	ix := NewVectorIndex()
	vec := func(x float32) []float32 { return []float32{x, 1 - x} }
	ix.Replace("v1", 2, []VectorEntry{
		{ID: "a", Seq: 1, Published: true, Embedding: vec(1)},
		{ID: "b", Seq: 2, Published: true, Embedding: vec(0)},
		{ID: "c", Seq: 3, Published: false, Embedding: vec(1)},
	})
	if !ix.Apply("v1", []VectorEntry{{ID: "b", Seq: 9, Published: false}, {ID: "d", Seq: 4, Published: true, Embedding: vec(1)}}, []string{"a"}) {
		t.Fatal("Apply refused the version it holds")
	}
	got, total := ix.Nearest(vec(1), SearchFilter{}, -1, 10, math.MaxInt)
	if total != 1 || got[0].ID != "d" {
		t.Errorf("after apply: %v", got)
	}
	if fp := ix.Fingerprint(); fp != (Fingerprint{Version: "v1", Count: 3, SeqSum: 9 + 3 + 4}) {
		t.Errorf("fingerprint %+v", fp)
	}
	if ix.Apply("v2", nil, []string{"d"}) || ix.Len() != 1 {
		t.Error("Apply changed an index of another version")
	}
}

// TestFusionNeverLetsAWeakSemanticMatchOverrideKeywords: equal-weight
// reciprocal rank fusion put any hit both rankings found above the keyword
// first that the semantic ranking missed.
func TestFusionNeverLetsAWeakSemanticMatchOverrideKeywords(t *testing.T) {
	t.Parallel()
	kw := []ScoredID{{ID: "kw-first", Score: 0.5}, {ID: "both", Score: 0.4}, {ID: "kw-last", Score: 0.02}}
	sem := []ScoredID{{ID: "sem-only", Score: 0.9}, {ID: "both", Score: 0.3}}
	tests := []struct {
		name   string
		weight float64
		want   []string
	}{
		{"a lexical provider keeps the keyword order and ranks what keywords missed after their good matches", 0.1, []string{"kw-first", "both", "sem-only", "kw-last"}},
		{"without a semantic weight the keyword order stands and semantic matches follow", 0, []string{"kw-first", "both", "kw-last", "sem-only"}},
		{"a provider that knows more lifts the near tie it agrees with", 0.5, []string{"both", "kw-first", "sem-only", "kw-last"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := fuse(kw, sem, tt.weight)
			var order []string
			for _, h := range got {
				order = append(order, h.ID)
			}
			if !slices.Equal(order, tt.want) {
				t.Errorf("order %q, want %q", order, tt.want)
			}
		})
	}
	got := fuse(kw, sem, 0.1)
	if b := got[1]; b.ID != "both" || *b.Scores.Keyword != 0.4 || *b.Scores.Semantic != 0.3 || math.Abs(*b.Scores.Fused-(0.9*0.4/0.5+0.1*0.3)) > 1e-12 {
		t.Errorf("scores of the hit both found: %+v", b.Scores)
	}
	if got[2].Scores.Keyword != nil || got[0].Scores.Semantic != nil {
		t.Error("a ranking that missed a hit gave it a score")
	}
}
