package catalog

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
)

// DocLexeme is one lexeme of a search document with the best weight it has
// there ('A', nome_servico, outranks 'B', 'C' and 'D') and its positions
// as the tsvector stores them (the weight's code, 3 for A down to 0 for D,
// in the top two bits, the position below; none when it has none).
type DocLexeme struct {
	Lexeme    string
	Weight    byte
	Positions []uint16
}

// lexWeight is a weight's share of a cheap keyword score: ts_rank's default
// weights, so the cheap score orders documents the way ts_rank mostly does.
func lexWeight(w byte) float32 {
	switch w {
	case 'A':
		return 1
	case 'B':
		return 0.4
	case 'C':
		return 0.2
	}
	return 0.1
}

// lexPosting is a document holding a lexeme, with the lexeme's weight there.
type lexPosting struct {
	doc    int32
	weight float32
}

// lexDoc is one published Servico in a lexicalIndex.
type lexDoc struct {
	id string
	// key orders ids as strings do, for their first 16 bytes (idKey).
	key  [2]uint64
	meta vectorMeta
	// terms are its lexemes in order, to rank it and to remove its
	// postings; pos holds their positions, one lexeme after the other.
	terms []lexTerm
	pos   []uint16
	live  bool
}

// lexicalIndex is an inverted index of the lexemes of the published
// Servicos' current-version documents, kept beside their vectors. It finds
// which documents match a keyword query and orders them by a cheap score
// (the best weight of each matched word, summed), so that Postgres ranks a
// bounded set of candidates exactly instead of every match. The owner's
// lock guards it.
type lexicalIndex struct {
	docs     []lexDoc
	free     []int32
	byID     map[string]int32
	postings map[string][]lexPosting
	// sorted holds the keys of postings in order, for prefix matches.
	sorted []string
}

// reset empties the index for n documents.
func (x *lexicalIndex) reset(n int) {
	x.docs, x.free = make([]lexDoc, 0, n), nil
	x.byID = make(map[string]int32, n)
	x.postings = map[string][]lexPosting{}
	x.sorted = nil
}

// add records a published Servico's lexemes; bulk adds the lexemes to
// sorted only when the caller sorts them afterwards.
func (x *lexicalIndex) add(e VectorEntry, meta vectorMeta, bulk bool) {
	if !e.Published || len(e.Lexemes) == 0 {
		return
	}
	var n int32
	if k := len(x.free); k > 0 {
		n, x.free = x.free[k-1], x.free[:k-1]
	} else {
		n = int32(len(x.docs))
		x.docs = append(x.docs, lexDoc{})
	}
	d := lexDoc{id: e.ID, key: idKey(e.ID), meta: meta, live: true, terms: make([]lexTerm, 0, len(e.Lexemes))}
	npos := 0
	for _, l := range e.Lexemes {
		npos += len(l.Positions)
	}
	d.pos = make([]uint16, 0, npos)
	for _, l := range e.Lexemes {
		p, ok := x.postings[l.Lexeme]
		if !ok && !bulk {
			i, _ := slices.BinarySearch(x.sorted, l.Lexeme)
			x.sorted = slices.Insert(x.sorted, i, l.Lexeme)
		}
		if ok && p[len(p)-1].doc == n {
			continue // a lexeme listed twice
		}
		x.postings[l.Lexeme] = append(p, lexPosting{doc: n, weight: lexWeight(l.Weight)})
		from := uint32(len(d.pos))
		d.pos = append(d.pos, l.Positions...)
		d.terms = append(d.terms, lexTerm{lexeme: l.Lexeme, from: from, to: uint32(len(d.pos))})
	}
	slices.SortFunc(d.terms, func(a, b lexTerm) int { return strings.Compare(a.lexeme, b.lexeme) })
	x.docs[n] = d
	x.byID[e.ID] = n
}

// sortLexemes rebuilds sorted after bulk adds.
func (x *lexicalIndex) sortLexemes() {
	x.sorted = make([]string, 0, len(x.postings))
	for l := range x.postings {
		x.sorted = append(x.sorted, l)
	}
	slices.Sort(x.sorted)
}

// remove forgets the Servico id.
func (x *lexicalIndex) remove(id string) {
	n, ok := x.byID[id]
	if !ok {
		return
	}
	delete(x.byID, id)
	for _, t := range x.docs[n].terms {
		l := t.lexeme
		p := x.postings[l]
		if i := slices.IndexFunc(p, func(q lexPosting) bool { return q.doc == n }); i >= 0 {
			p[i] = p[len(p)-1]
			p = p[:len(p)-1]
		}
		if len(p) == 0 {
			delete(x.postings, l)
			if i, found := slices.BinarySearch(x.sorted, l); found {
				x.sorted = slices.Delete(x.sorted, i, i+1)
			}
			continue
		}
		x.postings[l] = p
	}
	x.docs[n] = lexDoc{}
	x.free = append(x.free, n)
}

// lexScratch holds the per-document score buffers of one evaluation.
type lexScratch struct{ bufs [][]float32 }

var lexScratchPool = sync.Pool{New: func() any { return &lexScratch{} }}

// get returns a zeroed buffer of n scores; put gives the last one back.
func (s *lexScratch) get(depth, n int) []float32 {
	for len(s.bufs) <= depth {
		s.bufs = append(s.bufs, nil)
	}
	b := s.bufs[depth]
	if cap(b) < n {
		b = make([]float32, n)
	} else {
		b = b[:n]
		clear(b)
	}
	s.bufs[depth] = b
	return b
}

// eval raises out, per document, to the cheap score of m where that is
// higher: a lexeme's weight, the best of a prefix's lexemes or of Any's
// parts, the lowest of All's parts; documents m does not match keep theirs.
// Only All needs buffers of its own (depth picks them from s): the rest
// raises out directly from the postings, so the work follows the postings
// read, not the catalog's size.
func (x *lexicalIndex) eval(m Match, out []float32, s *lexScratch, depth int) {
	switch {
	case len(m.All) > 0:
		all := s.get(depth, len(out))
		x.eval(m.All[0], all, s, depth+2)
		part := s.get(depth+1, len(out))
		for _, p := range m.All[1:] {
			clear(part)
			x.eval(p, part, s, depth+2)
			for i, v := range part {
				all[i] = min(all[i], v)
			}
		}
		for i, v := range all {
			out[i] = max(out[i], v)
		}
	case len(m.Any) > 0:
		for _, p := range m.Any {
			x.eval(p, out, s, depth)
		}
	case m.Prefix:
		i, _ := slices.BinarySearch(x.sorted, m.Lexeme)
		for ; i < len(x.sorted) && strings.HasPrefix(x.sorted[i], m.Lexeme); i++ {
			for _, p := range x.postings[x.sorted[i]] {
				out[p.doc] = max(out[p.doc], p.weight)
			}
		}
	default:
		for _, p := range x.postings[m.Lexeme] {
			out[p.doc] = max(out[p.doc], p.weight)
		}
	}
}

// maxInsertedCandidates is the most candidates kept sorted by insertion;
// more are sorted at once.
const maxInsertedCandidates = 1000

// candidates returns the n documents f admits with the best cheap score for
// terms (every term must match when every is set, else any), ties broken by
// id, and how many documents f admits match.
func (x *lexicalIndex) candidates(terms []Match, every bool, f SearchFilter, n int) ([]string, int) {
	s := lexScratchPool.Get().(*lexScratch)
	defer lexScratchPool.Put(s)
	size := len(x.docs)
	total := s.get(0, size)
	term := s.get(1, size)
	matched := 0
	for _, t := range terms {
		if t.IsZero() {
			continue
		}
		clear(term)
		x.eval(t, term, s, 2)
		for i, v := range term {
			switch {
			case v > 0 && (total[i] > 0 || !every || matched == 0):
				total[i] += v
			case every:
				total[i] = 0
			}
		}
		matched++
	}
	if matched == 0 {
		return nil, 0
	}
	type scored struct {
		doc   int32
		score float32
	}
	better := func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return x.compareIDs(a.doc, b.doc)
	}
	// A page's few blocks are kept sorted as they fill, most matches
	// rejected by one comparison; a deep page's many are sorted once.
	insert := n <= maxInsertedCandidates
	top := make([]scored, 0, min(n, maxInsertedCandidates)+1)
	count := 0
	for i, v := range total {
		if v <= 0 || !x.docs[i].live || !f.match(&x.docs[i].meta) {
			continue
		}
		count++
		c := scored{int32(i), v}
		if !insert {
			top = append(top, c)
			continue
		}
		if len(top) == n && better(c, top[n-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, c, better)
		top = slices.Insert(top, at, c)
		if len(top) > n {
			top = top[:n]
		}
	}
	if !insert {
		slices.SortFunc(top, better)
		top = top[:min(n, len(top))]
	}
	ids := make([]string, len(top))
	for i, c := range top {
		ids[i] = x.docs[c.doc].id
	}
	return ids, count
}

// idKey packs the first 16 bytes of id, zero-padded, into two big-endian
// words, so comparing keys orders ids as comparing the strings does up to
// there: a common word matches thousands of documents with equal cheap
// scores, and comparing 36-byte ids broke those ties at a third of the
// cost of picking candidates.
func idKey(id string) [2]uint64 {
	var b [16]byte
	copy(b[:], id)
	return [2]uint64{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

// compareIDs orders documents a and b by id, as strings.Compare does.
func (x *lexicalIndex) compareIDs(a, b int32) int {
	da, db := &x.docs[a], &x.docs[b]
	if c := cmp.Compare(da.key[0], db.key[0]); c != 0 {
		return c
	}
	if c := cmp.Compare(da.key[1], db.key[1]); c != 0 {
		return c
	}
	return strings.Compare(da.id, db.id)
}
