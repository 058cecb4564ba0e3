package catalog

import (
	"cmp"
	"slices"
)

// SearchResult is one page of a search.
type SearchResult struct {
	Data []Hit      `json:"data"`
	Meta SearchMeta `json:"meta"`
}

// SearchMeta describes a search page: how many Servicos matched, which page
// this is, and which schema version and mode ranked them.
type SearchMeta struct {
	// Total is how many hits the pages of this search hold, so paging
	// stops at it.
	Total int `json:"total"`
	// TotalIsLowerBound is set when more Servicos matched than a hybrid
	// search fuses: Total then counts the fused candidates only.
	TotalIsLowerBound bool   `json:"total_is_lower_bound"`
	Page              int    `json:"page"`
	PerPage           int    `json:"per_page"`
	SchemaVersion     string `json:"schema_version"`
	Mode              string `json:"mode"`
	// Degraded is set when hybrid search could not embed the query and
	// ranked by keywords alone.
	Degraded bool `json:"degraded,omitempty"`
	// Synonyms lists the synonym rules that changed the keyword ranking.
	Synonyms []FiredSynonym `json:"synonyms,omitempty"`
}

// Hit is one Servico found by a search, without its search document, with
// the score it was ranked by and the score of each ranking that found it.
type Hit struct {
	Servico
	Score  float64   `json:"score"`
	Scores HitScores `json:"scores"`
}

// HitScores holds the keyword score (weighted ts_rank), the semantic score
// (cosine similarity) and, in hybrid mode, the fused score; a ranking that
// did not find the hit is null.
type HitScores struct {
	Keyword  *float64 `json:"keyword"`
	Semantic *float64 `json:"semantic"`
	Fused    *float64 `json:"fused"`
}

// rankedHit is a Servico id with its scores, before its data is loaded.
type rankedHit struct {
	ID     string
	Score  float64
	Scores HitScores
}

// fuse merges the keyword and the semantic ranking by a convex combination
// of their scores, best first, ties broken by id so pages are stable:
//
//	fused = (1 - w) · keyword / best keyword + w · similarity
//
// The keyword score (ts_rank) is relative to the query's best match, the
// similarity (cosine) is absolute, and a ranking that did not find a hit
// adds nothing. w is the semantic channel's weight, set by how much the
// embedding provider knows: a lexical one (hash) only breaks near-ties
// among keyword matches and ranks what keywords missed after them, so a
// weak semantic match never pushes a keyword match down.
func fuse(keyword, semantic []ScoredID, w float64) []rankedHit {
	byID := make(map[string]*rankedHit, len(keyword)+len(semantic))
	hit := func(id string) *rankedHit {
		h, ok := byID[id]
		if !ok {
			h = &rankedHit{ID: id}
			byID[id] = h
		}
		return h
	}
	best := 0.0
	for _, s := range keyword {
		best = max(best, s.Score)
	}
	for _, s := range keyword {
		h, v := hit(s.ID), s.Score
		h.Scores.Keyword = &v
		if best > 0 {
			h.Score += (1 - w) * v / best
		}
	}
	for _, s := range semantic {
		h, v := hit(s.ID), s.Score
		h.Scores.Semantic = &v
		h.Score += w * v
	}
	out := make([]rankedHit, 0, len(byID))
	for _, h := range byID {
		fused := h.Score
		h.Scores.Fused = &fused
		out = append(out, *h)
	}
	slices.SortFunc(out, func(a, b rankedHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// single turns one ranking into hits scored by it.
func single(list []ScoredID, keyword bool) []rankedHit {
	out := make([]rankedHit, len(list))
	for i, s := range list {
		v := s.Score
		out[i] = rankedHit{ID: s.ID, Score: v}
		if keyword {
			out[i].Scores.Keyword = &v
		} else {
			out[i].Scores.Semantic = &v
		}
	}
	return out
}

// pageOf returns the hits of one page of a ranking.
func pageOf(all []rankedHit, offset, perPage int) []rankedHit {
	if offset >= len(all) {
		return nil
	}
	return all[offset:min(offset+perPage, len(all))]
}
