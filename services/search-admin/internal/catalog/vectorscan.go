package catalog

import "slices"

// SearchFilter restricts a search: published Servicos only (always), of one
// tema_geral and one orgao_gestor when given, and agent-only entries only
// when asked by a caller allowed to see them.
type SearchFilter struct {
	TemaGeral        string
	OrgaoGestor      string
	IncludeAgentOnly bool
}

func (f SearchFilter) match(m *vectorMeta) bool {
	return (f.IncludeAgentOnly || !m.agentOnly) &&
		(f.TemaGeral == "" || m.temaGeral == f.TemaGeral) &&
		(f.OrgaoGestor == "" || slices.Contains(m.orgaoGestor, f.OrgaoGestor))
}

// ScoredID is one ranked Servico.
type ScoredID struct {
	ID    string
	Score float64
}

// Nearest returns the k vectors most similar to query among those f admits
// with a similarity of at least minScore, best first (ties by id), and how
// many vectors passed. query must be L2-normalized and of the index's dimension.
func (ix *VectorIndex) Nearest(query []float32, f SearchFilter, minScore float32, k int) ([]ScoredID, int) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if len(query) != ix.dims || k <= 0 {
		return nil, 0
	}
	top := topK{ids: ix.ids, items: make([]scoredSlot, 0, min(k, len(ix.ids)))}
	total := 0
	for i := range ix.ids {
		if !f.match(&ix.meta[i]) {
			continue
		}
		s := dot(query, ix.vecs[i*ix.dims:(i+1)*ix.dims])
		if s < minScore {
			continue
		}
		total++
		top.offer(scoredSlot{score: s, slot: int32(i)}, k)
	}
	return top.sorted(), total
}

// dot is the inner product of two vectors of equal length, unrolled by four.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

type scoredSlot struct {
	score float32
	slot  int32
}

// topK keeps the k best slots in a min-heap whose root is the worst kept.
type topK struct {
	ids   []string
	items []scoredSlot
}

// better orders by score, then by id so that equal scores page stably.
func (t *topK) better(a, b scoredSlot) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return t.ids[a.slot] < t.ids[b.slot]
}

func (t *topK) offer(s scoredSlot, k int) {
	if len(t.items) < k {
		t.items = append(t.items, s)
		t.up(len(t.items) - 1)
		return
	}
	if t.better(s, t.items[0]) {
		t.items[0] = s
		t.down(0)
	}
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.better(t.items[p], t.items[i]) {
			return
		}
		t.items[p], t.items[i] = t.items[i], t.items[p]
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.items)
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < n && t.better(t.items[worst], t.items[l]) {
			worst = l
		}
		if r < n && t.better(t.items[worst], t.items[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		t.items[i], t.items[worst] = t.items[worst], t.items[i]
		i = worst
	}
}

func (t *topK) sorted() []ScoredID {
	slices.SortFunc(t.items, func(a, b scoredSlot) int {
		if t.better(a, b) {
			return -1
		}
		return 1
	})
	out := make([]ScoredID, len(t.items))
	for i, s := range t.items {
		out[i] = ScoredID{ID: t.ids[s.slot], Score: float64(s.score)}
	}
	return out
}
