package catalog

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
)

// This file ranks keyword candidates as Postgres's ts_rank(document, query)
// does (src/backend/utils/adt/tsrank.c, default weights, no normalization),
// from the positions the replica keeps, so a search need not send the
// candidates to Postgres to be ranked. The arithmetic follows the C code
// step by step, float32 where it is float and float64 where it is double,
// with explicit conversions so that no step is fused: the scores are
// Postgres's to the bit (TestRankAgreesWithPostgresToTheBit).

// A position as a tsvector stores it: the weight's code (3 for A down to 0
// for D) in the top two bits, the word's position below.
const (
	posMask     = 1<<14 - 1
	maxEntryPos = 1 << 14
)

// tsWeights are ts_rank's default weights, by weight code (D, C, B, A).
var tsWeights = [4]float32{0.1, 0.2, 0.4, 1.0}

// posNull stands for the positions of a lexeme stored without any: one
// position at the last place, weight D.
var posNull = []uint16{maxEntryPos - 1}

// wordDistances holds word_distance(d) for d up to 100; farther is 1e-30.
var wordDistances = func() [101]float32 {
	var t [101]float32
	for d := range t {
		t[d] = float32(1.0 / (1.005 + float64(0.05*math.Exp(float64(float32(d))/1.5-2))))
	}
	return t
}()

func wordDistance(d int) float32 {
	if d > 100 {
		return 1e-30
	}
	return wordDistances[d]
}

// lexTerm is one lexeme of a document; its positions are pos[from:to] of
// the document's (offsets, not a slice each: 10k documents hold ~600k
// lexemes, and the collector would trace every slice).
type lexTerm struct {
	lexeme   string
	from, to uint32
}

// rankItem is one operand of a keyword query.
type rankItem struct {
	lexeme string
	prefix bool
}

// rankQuery is a keyword query as ts_rank reads it: its operands sorted by
// lexeme without repeats, and whether its top operator is AND.
type rankQuery struct {
	items []rankItem
	and   bool
}

// newRankQuery reads terms as the tsquery the store writes for them (every
// AND-ed or OR-ed, see postgres.tsquery).
//
// ts_rank sorts the query's operands by lexeme and keeps the first of
// equal ones, so a lexeme both whole and as a prefix (an incomplete last
// word) ranks as the one Postgres's sort leaves first. Postgres lists the
// operands last first and sorts fewer than seven, or a sorted list, without
// reordering equal ones; otherwise the survivor depends on its quicksort,
// and ok is false: only Postgres can rank that query.
func newRankQuery(terms []Match, every bool) (rankQuery, bool) {
	var q rankQuery
	var parts []Match
	for _, t := range terms {
		if n := len(q.items); collectItems(t, &q.items) > n {
			parts = append(parts, t)
		}
	}
	switch len(parts) {
	case 0:
		return q, false
	case 1:
		q.and = topIsAnd(parts[0])
	default:
		q.and = every
	}
	slices.Reverse(q.items)
	byLexeme := func(a, b rankItem) int { return strings.Compare(a.lexeme, b.lexeme) }
	stable := len(q.items) < 7 || slices.IsSortedFunc(q.items, byLexeme)
	slices.SortStableFunc(q.items, byLexeme)
	out := q.items[:1]
	for _, it := range q.items[1:] {
		last := out[len(out)-1]
		if it.lexeme != last.lexeme {
			out = append(out, it)
		} else if it.prefix != last.prefix && !stable {
			return q, false
		}
	}
	q.items = out
	return q, true
}

// collectItems appends the operands m writes to the tsquery and returns
// how many items there are then.
func collectItems(m Match, items *[]rankItem) int {
	parts := m.All
	if len(m.Any) > 0 {
		parts = m.Any
	}
	if len(parts) == 0 {
		if IsLexeme(m.Lexeme) {
			*items = append(*items, rankItem{m.Lexeme, m.Prefix})
		}
		return len(*items)
	}
	for _, p := range parts {
		collectItems(p, items)
	}
	return len(*items)
}

// topIsAnd reports whether the tsquery of m has AND at its top.
func topIsAnd(m Match) bool {
	parts, and := m.All, true
	if len(m.Any) > 0 {
		parts, and = m.Any, false
	}
	var written []Match
	for _, p := range parts {
		var items []rankItem
		if collectItems(p, &items) > 0 {
			written = append(written, p)
		}
	}
	switch len(written) {
	case 0:
		return false
	case 1:
		return topIsAnd(written[0])
	}
	return and
}

// IsLexeme reports whether s is made of letters, digits and combining
// marks only: none of it is tsquery syntax, as the store requires of every
// lexeme it writes.
func IsLexeme(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.M, r) {
			return false
		}
	}
	return true
}

// entries returns the terms of doc (sorted by lexeme) that it matches.
func (it rankItem) entries(doc []lexTerm) []lexTerm {
	i, found := slices.BinarySearchFunc(doc, it.lexeme, func(t lexTerm, l string) int { return cmp.Compare(t.lexeme, l) })
	if !it.prefix {
		if !found {
			return nil
		}
		return doc[i : i+1]
	}
	j := i
	for j < len(doc) && strings.HasPrefix(doc[j].lexeme, it.lexeme) {
		j++
	}
	return doc[i:j]
}

// positions returns the positions of t in d, posNull when it has none.
func (d *lexDoc) positions(t lexTerm) []uint16 {
	if t.from == t.to {
		return posNull
	}
	return d.pos[t.from:t.to]
}

// rank is ts_rank of the document d for q.
func (q *rankQuery) rank(d *lexDoc, scratch *[][]uint16) float32 {
	if len(d.terms) == 0 || len(q.items) == 0 {
		return 0
	}
	var res float32
	if q.and && len(q.items) >= 2 {
		res = q.rankAnd(d, scratch)
	} else {
		res = q.rankOr(d)
	}
	if res < 0 {
		res = 1e-20
	}
	return res
}

// rankOr is calc_rank_or.
func (q *rankQuery) rankOr(d *lexDoc) float32 {
	var res float32
	for _, it := range q.items {
		for _, e := range it.entries(d.terms) {
			pos := d.positions(e)
			var resj float32
			wjm, jm := float32(-1), 0
			for j, p := range pos {
				w := tsWeights[p>>14]
				resj = resj + w/float32((j+1)*(j+1))
				if w > wjm {
					wjm, jm = w, j
				}
			}
			part := float32(wjm+resj) - wjm/float32((jm+1)*(jm+1))
			res = float32(float64(res) + float64(part)/1.64493406685)
		}
	}
	return res / float32(len(q.items))
}

// rankAnd is calc_rank_and: every pair of positions of two different
// operands adds by the distance between them. As in C, an operand that
// matches several lexemes (a prefix) pairs with the last one the earlier
// operands matched.
func (q *rankQuery) rankAnd(d *lexDoc, scratch *[][]uint16) float32 {
	pos := (*scratch)[:0]
	for range q.items {
		pos = append(pos, nil)
	}
	*scratch = pos
	res := float32(-1)
	for i, it := range q.items {
		for _, e := range it.entries(d.terms) {
			pos[i] = d.positions(e)
			for k := range i {
				if pos[k] == nil {
					continue
				}
				null := len(pos[i]) == 1 && &pos[i][0] == &posNull[0] || len(pos[k]) == 1 && &pos[k][0] == &posNull[0]
				for _, l := range pos[i] {
					for _, p := range pos[k] {
						dist := int(l&posMask) - int(p&posMask)
						if dist < 0 {
							dist = -dist
						}
						if dist == 0 && !null {
							continue
						}
						if dist == 0 {
							dist = maxEntryPos
						}
						ww := float32(tsWeights[l>>14] * tsWeights[p>>14])
						curw := float32(math.Sqrt(float64(float32(ww * wordDistance(dist)))))
						if res < 0 {
							res = curw
						} else {
							res = float32(1.0 - float64((1.0-float64(res))*(1.0-float64(curw))))
						}
					}
				}
			}
		}
	}
	return res
}

// rank returns the page (limit from offset) of the documents ids ranked
// by ts_rank for q, best first, ties by id, as the store's ranking orders
// them; ids no longer in the index are left out.
func (x *lexicalIndex) rank(q *rankQuery, ids []string, limit, offset int) []ScoredID {
	type ranked struct {
		doc   int32
		score float32
	}
	all := make([]ranked, 0, len(ids))
	var scratch [][]uint16
	for _, id := range ids {
		if n, ok := x.byID[id]; ok && x.docs[n].live {
			all = append(all, ranked{n, q.rank(&x.docs[n], &scratch)})
		}
	}
	slices.SortFunc(all, func(a, b ranked) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return x.compareIDs(a.doc, b.doc)
	})
	if offset >= len(all) {
		return nil
	}
	all = all[offset:min(offset+limit, len(all))]
	out := make([]ScoredID, len(all))
	for i, r := range all {
		out[i] = ScoredID{ID: x.docs[r.doc].id, Score: float64(r.score)}
	}
	return out
}

// RankKeywords ranks the Servicos ids by ts_rank of their version
// document for terms (every one required when every is set), as the
// store's RankKeywordCandidates does, from the positions the index holds,
// and returns the page (limit from offset). ok is false when the index
// holds another version or only Postgres can rank the query (see
// newRankQuery).
func (ix *VectorIndex) RankKeywords(version string, terms []Match, every bool, ids []string, limit, offset int) (page []ScoredID, ok bool) {
	q, ok := newRankQuery(terms, every)
	if !ok {
		return nil, false
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if version == "" || version != ix.version {
		return nil, false
	}
	return ix.lex.rank(&q, ids, limit, offset), true
}
