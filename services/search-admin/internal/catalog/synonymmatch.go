package catalog

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/municipal-apis/platform/services/search-admin/internal/textnorm"
)

// FiredSynonym is a synonym rule that changed a search: the query words it
// matched and the terms it added to them.
type FiredSynonym struct {
	ID      string   `json:"id"`
	Matched string   `json:"matched"`
	Added   []string `json:"added"`
}

// synonymCache holds the synonym rules compiled for the schema versions
// searched, for the revision of the rules they were read at. A search that
// reads another revision reloads them: rules apply at query time, with no
// re-index, on every replica at its next search.
type synonymCache struct {
	mu       sync.Mutex
	revision int64
	byVer    map[string]*synonymRules
}

// rules returns the rules of revision compiled for schema, loading and
// compiling them when the cache holds another revision.
func (c *synonymCache) rules(ctx context.Context, s *Searcher, schema Schema, revision int64) (*synonymRules, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.revision != revision || c.byVer == nil {
		c.revision, c.byVer = revision, map[string]*synonymRules{}
	}
	if r, ok := c.byVer[schema.Version]; ok {
		return r, nil
	}
	all, err := s.store.AllSynonyms(ctx)
	if err != nil {
		return nil, fmt.Errorf("load synonym rules: %w", err)
	}
	r, err := compileSynonyms(ctx, s, schema, all)
	if err != nil {
		return nil, err
	}
	c.byVer[schema.Version] = r
	return r, nil
}

// synonymRules are synonym rules compiled for one schema version: each
// term's words analyzed like query words, indexed by the folded forms of
// their first word.
type synonymRules struct {
	rules   []compiledRule
	byFirst map[string][]termRef
}

// compiledRule is one rule with its terms, the root first when one-way.
type compiledRule struct {
	id     string
	oneWay bool
	terms  []compiledTerm
}

// compiledTerm is one term of a rule and its words that are no stop words.
type compiledTerm struct {
	text  string
	words []queryWord
}

// termRef points at a term of a rule.
type termRef struct{ rule, term int }

// WarmSynonyms compiles the synonym rules of the current schema version
// and revision, which the first keyword or hybrid search would otherwise
// compile while every search behind it waits (about a second with the
// shipped rules). A program calls it as it starts, before it serves; it
// returns how many rules were compiled.
func (s *Searcher) WarmSynonyms(ctx context.Context) (int, error) {
	settings, err := s.store.SearchSettings(ctx)
	if err != nil {
		return 0, err
	}
	schema, err := s.schemas.Lookup(settings.Version)
	if err != nil {
		return 0, err
	}
	r, err := s.synonyms.rules(ctx, s, schema, settings.SynonymsRevision)
	if err != nil {
		return 0, err
	}
	return len(r.rules), nil
}

// compileSynonyms analyzes every term of rules in one round trip, each
// distinct list of words once (terms repeat across rules).
func compileSynonyms(ctx context.Context, s *Searcher, schema Schema, rules []Synonym) (*synonymRules, error) {
	var lists [][]string
	var of []int // the list of each term, in order
	seen := map[string]int{}
	for _, r := range rules {
		for _, t := range r.terms() {
			tokens := textnorm.Tokens(t)
			key := strings.Join(tokens, " ")
			i, ok := seen[key]
			if !ok {
				i = len(lists)
				seen[key] = i
				lists = append(lists, tokens)
			}
			of = append(of, i)
		}
	}
	analyzed, err := s.analyze(ctx, schema, lists)
	if err != nil {
		return nil, fmt.Errorf("analyze synonym rules: %w", err)
	}
	out := &synonymRules{byFirst: map[string][]termRef{}}
	n := 0
	for _, r := range rules {
		cr := compiledRule{id: r.ID, oneWay: r.Root != ""}
		for _, t := range r.terms() {
			ct := compiledTerm{text: t}
			for _, w := range analyzed[of[n]] {
				if !w.match.IsZero() {
					ct.words = append(ct.words, w)
				}
			}
			n++
			cr.terms = append(cr.terms, ct)
		}
		out.rules = append(out.rules, cr)
	}
	for ri, r := range out.rules {
		for ti, t := range r.terms {
			if len(t.words) == 0 || (r.oneWay && ti > 0) {
				continue
			}
			for _, f := range t.words[0].forms {
				out.byFirst[f] = append(out.byFirst[f], termRef{ri, ti})
			}
		}
	}
	return out, nil
}

// synonymHit is a term of a rule found at a span of a query's content words.
type synonymHit struct {
	start, length int
	ref           termRef
}

// expand turns the words of a query into terms, one per word that is no
// stop word, except that the words a synonym rule matched become one term
// that matches them or any term the rule adds. A span matched by several
// rules gets all their terms; of overlapping spans the longest wins.
func (sr *synonymRules) expand(words []queryWord) ([]Match, []FiredSynonym) {
	var content []*queryWord
	for i := range words {
		if !words[i].match.IsZero() {
			content = append(content, &words[i])
		}
	}
	hits := sr.find(content)
	spans := make([]int, len(content)) // a span's length at its start; -1 inside it
	var accepted []synonymHit
	for _, h := range hits {
		if spans[h.start] != h.length && !spanFree(spans, h) {
			continue
		}
		if slices.ContainsFunc(accepted, func(a synonymHit) bool { return a.start == h.start && a.ref.rule == h.ref.rule }) {
			continue
		}
		spans[h.start] = h.length
		for k := h.start + 1; k < h.start+h.length; k++ {
			spans[k] = -1
		}
		accepted = append(accepted, h)
	}
	var terms []Match
	var fired []FiredSynonym
	for i := 0; i < len(content); i++ {
		if spans[i] <= 0 {
			terms = append(terms, content[i].match)
			continue
		}
		span := content[i : i+spans[i]]
		parts, typed := make([]Match, len(span)), make([]string, len(span))
		for k, w := range span {
			parts[k], typed[k] = w.match, w.typed
		}
		term := allMatch(parts)
		for _, h := range accepted {
			if h.start != i {
				continue
			}
			f := FiredSynonym{ID: sr.rules[h.ref.rule].id, Matched: strings.Join(typed, " ")}
			for _, t := range sr.added(h.ref) {
				term = term.or(t.match())
				f.Added = append(f.Added, t.text)
			}
			fired = append(fired, f)
		}
		terms = append(terms, term)
		i += len(span) - 1
	}
	return terms, fired
}

// spanFree reports whether no accepted span covers a word of h.
func spanFree(spans []int, h synonymHit) bool {
	for k := h.start; k < h.start+h.length; k++ {
		if spans[k] != 0 {
			return false
		}
	}
	return true
}

// find returns every term found in content, longest first, then leftmost.
func (sr *synonymRules) find(content []*queryWord) []synonymHit {
	var hits []synonymHit
	for start, w := range content {
		var refs []termRef
		for _, f := range w.forms {
			for _, ref := range sr.byFirst[f] {
				if !slices.Contains(refs, ref) {
					refs = append(refs, ref)
				}
			}
		}
		for _, ref := range refs {
			t := sr.rules[ref.rule].terms[ref.term]
			if start+len(t.words) <= len(content) && t.matches(content[start:start+len(t.words)]) {
				hits = append(hits, synonymHit{start: start, length: len(t.words), ref: ref})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].length != hits[j].length {
			return hits[i].length > hits[j].length
		}
		return hits[i].start < hits[j].start
	})
	return hits
}

// matches reports whether each word of t shares a folded form with the
// query word at its place.
func (t compiledTerm) matches(words []*queryWord) bool {
	for k, w := range t.words {
		if !slices.ContainsFunc(w.forms, func(f string) bool { return slices.Contains(words[k].forms, f) }) {
			return false
		}
	}
	return true
}

// added returns the terms a match of ref adds: every other term of a
// multi-way rule, the synonyms of a one-way rule.
func (sr *synonymRules) added(ref termRef) []compiledTerm {
	r := sr.rules[ref.rule]
	var out []compiledTerm
	for ti, t := range r.terms {
		if ti != ref.term && (!r.oneWay || ti > 0) && len(t.words) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// match is what a term matches: every one of its words.
func (t compiledTerm) match() Match {
	parts := make([]Match, len(t.words))
	for i, w := range t.words {
		parts[i] = w.match
	}
	return allMatch(parts)
}
