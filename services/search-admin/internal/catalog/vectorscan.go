package catalog

import (
	"math"
	"slices"
	"sync"
)

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

// admits reports whether f lets a search show sv as it is stored now: the
// index's test (match) on what the row holds, which must be published.
func (f SearchFilter) admits(sv *Servico) bool {
	m := vectorMeta{agentOnly: sv.Agents != nil && sv.Agents.ExclusiveForAgents, temaGeral: sv.TemaGeral, orgaoGestor: sv.OrgaoGestor}
	return sv.Status == StatusPublished && f.match(&m)
}

// ScoredID is one ranked Servico.
type ScoredID struct {
	ID    string
	Score float64
}

// Nearest returns the k vectors most similar to query among those f admits
// with a similarity of at least minScore, best first (ties by id), and how
// many vectors passed, counted exactly up to countTo: beyond it the count
// may fall short of the truth, but not below countTo. query must be
// L2-normalized and of the index's dimension.
//
// The answer is exact, but most vectors are only read as their codes: a
// first pass scores every admitted vector by its codes, a quarter of the
// bytes, within a known error (the loss of its codes times the query's
// norm). A vector whose best possible score stays below the k-th best
// worst-case score cannot rank, and one whose worst possible score reaches
// minScore counts without more; the second pass scores only the others
// (some hundreds of 10,000) from the full vectors.
func (ix *VectorIndex) Nearest(query []float32, f SearchFilter, minScore float32, k, countTo int) ([]ScoredID, int) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if len(query) != ix.dims || k <= 0 {
		return nil, 0
	}
	sc := scanScratchPool.Get().(*scanScratch)
	defer scanScratchPool.Put(sc)
	qnorm := float32(math.Sqrt(float64(dot(query, query))))
	// slack covers the rounding of two float32 sums of dims products of
	// at most qnorm, far below the codes' loss.
	slack := qnorm * float32(ix.dims) * 1e-6
	approx := sc.approx(len(ix.ids))
	sparse := ix.sparseCodeScores(query, approx, sc)
	floor := sc.floor[:0]
	for i := range ix.ids {
		if !f.match(&ix.meta[i]) {
			approx[i] = float32(math.Inf(-1))
			continue
		}
		a := approx[i] // the column scan's dot, when sparse
		if !sparse {
			a = dotInt8(query, ix.codes[i*ix.dims:(i+1)*ix.dims])
		}
		a *= ix.scales[i]
		e := qnorm*ix.losses[i] + slack
		if a+e < minScore {
			approx[i] = float32(math.Inf(-1))
			continue
		}
		approx[i] = a
		if len(floor) < k || a-e > floor[0] { // most fall short: no call
			floor = offerFloor(floor, a-e, k)
		}
	}
	sc.floor = floor
	cut := float32(math.Inf(-1))
	if len(floor) == k {
		cut = floor[0]
	}
	top := topK{ids: ix.ids, items: make([]scoredSlot, 0, min(k, len(ix.ids)))}
	total := 0
	for i, a := range approx {
		if math.IsInf(float64(a), -1) {
			continue
		}
		e := qnorm*ix.losses[i] + slack
		if a+e < cut {
			if a-e >= minScore {
				total++ // passes, and k others surely score more
				continue
			}
			if total >= countTo {
				continue // cannot rank, and passing would not be counted
			}
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

// sparseCodeScores writes into scores, when query has few nonzero
// dimensions (at most one in sparseShare, as a lexical embedding of a short
// query has), each slot's dot product of query with its codes, reading only
// the columns of those dimensions, and reports whether it did. A dense query
// is cheaper scanned by slot.
func (ix *VectorIndex) sparseCodeScores(query, scores []float32, sc *scanScratch) bool {
	nonzero := sc.nonzero[:0]
	for j, x := range query {
		if x != 0 {
			if nonzero = append(nonzero, j); len(nonzero)*sparseShare > len(query) {
				sc.nonzero = nonzero
				return false
			}
		}
	}
	sc.nonzero = nonzero
	clear(scores)
	for _, j := range nonzero {
		axpyInt8(scores, query[j], ix.column(j, len(scores)))
	}
	return true
}

// sparseShare: a query with at most one nonzero dimension in sparseShare is
// scanned by column.
const sparseShare = 4

// scanScratch holds one scan's approximate scores and its heap of the k
// best worst-case scores, reused across scans.
type scanScratch struct {
	scores  []float32
	floor   []float32
	nonzero []int
}

var scanScratchPool = sync.Pool{New: func() any { return &scanScratch{} }}

// approx returns a buffer of n scores (not cleared).
func (s *scanScratch) approx(n int) []float32 {
	if cap(s.scores) < n {
		s.scores = make([]float32, n)
	}
	return s.scores[:n]
}

// offerFloor keeps in h, a min-heap, the k highest values offered; h[0]
// is then the k-th highest.
func offerFloor(h []float32, v float32, k int) []float32 {
	if len(h) < k {
		h = append(h, v)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if h[p] <= h[i] {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		return h
	}
	if v <= h[0] {
		return h
	}
	h[0] = v
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l] < h[least] {
			least = l
		}
		if r < len(h) && h[r] < h[least] {
			least = r
		}
		if least == i {
			return h
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
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
