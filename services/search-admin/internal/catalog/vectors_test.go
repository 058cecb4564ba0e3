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
			got, total := ix.Nearest(query, tt.filter, 0, 10)
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
	got, total := ix.Nearest(vec(1), SearchFilter{}, -1, 10)
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

func TestReciprocalRankFusionRewardsAgreement(t *testing.T) {
	t.Parallel()
	kw := []ScoredID{{ID: "both", Score: 0.5}, {ID: "kw-only", Score: 0.9}}
	sem := []ScoredID{{ID: "sem-only", Score: 0.8}, {ID: "both", Score: 0.7}}
	got := fuseRRF(kw, sem)
	var order []string
	for _, h := range got {
		order = append(order, h.ID)
	}
	if !slices.Equal(order, []string{"both", "sem-only", "kw-only"}) {
		t.Errorf("order %q", order)
	}
	if b := got[0]; *b.Scores.Keyword != 0.5 || *b.Scores.Semantic != 0.7 || math.Abs(*b.Scores.Fused-(1.0/61+1.0/62)) > 1e-12 {
		t.Errorf("scores of the hit both found: %+v", b.Scores)
	}
	if got[1].Scores.Keyword != nil || got[2].Scores.Semantic != nil {
		t.Error("a ranking that missed a hit gave it a score")
	}
}
