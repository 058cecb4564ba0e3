package catalog

import (
	"context"
	"unicode/utf8"

	"github.com/municipal-apis/platform/services/search-admin/internal/textnorm"
)

// Lexeme is one word of a full-text query as search documents store it:
// stemmed and folded, letters and digits only.
type Lexeme struct {
	Text string
	// Prefix also matches the longer lexemes that start with Text.
	Prefix bool
}

// Alternative is one way a query term matches a document: by every one of
// its lexemes (a word the stemmer splits, or a phrase).
type Alternative []Lexeme

// Term is one word of a query with its corrections: a document matches the
// term when it matches any of its alternatives.
type Term []Alternative

// KeywordQuery is one full-text pass over the search documents of a version.
type KeywordQuery struct {
	Version string
	Terms   []Term
	// Every matches the documents that match every term; otherwise any
	// term, and documents that match more terms rank higher.
	Every         bool
	Filter        SearchFilter
	Limit, Offset int
}

// LexemeQuery asks for the lexemes of texts as the search documents of a
// version store them.
type LexemeQuery struct {
	// StemAccents is the version's Schema.StemAccents.
	StemAccents bool
	Texts       []string
}

// CorrectionQuery asks for the known words that may replace query words no
// search document of the version matches.
type CorrectionQuery struct {
	Version     string
	StemAccents bool
	Words       []CorrectionWord
}

// CorrectionWord is a query word and the term it became; it is corrected
// only when no document of the version matches the term.
type CorrectionWord struct {
	Word string
	Term Term
}

// Correction is a known word that may replace Words[Index] of a
// CorrectionQuery, with its lexemes.
type Correction struct {
	Index   int
	Word    string
	Lexemes []string
}

// Typo correction: words shorter than correctionMinLength (in letters)
// have too few trigrams to correct.
const correctionMinLength = 4

// queryWord is one word of a search and the full-text term it became
// (empty for a stop word).
type queryWord struct {
	text string
	term Term
}

// keywordRanking ranks the published Servicos for q by full text. Every
// word must match first; when that fills no page (q.PerPage), the words no
// document knows are corrected to the nearest known words and every word
// is tried again, and then any word matches.
func (s *Searcher) keywordRanking(ctx context.Context, schema Schema, q SearchQuery, limit, offset int) ([]ScoredID, int, error) {
	words, err := s.queryWords(ctx, schema, q.Text)
	if err != nil {
		return nil, 0, err
	}
	kq := KeywordQuery{Version: schema.Version, Terms: termsOf(words), Every: true, Filter: q.Filter, Limit: limit, Offset: offset}
	if len(kq.Terms) == 0 {
		return nil, 0, nil
	}
	hits, total, err := s.store.KeywordSearch(ctx, kq)
	if err != nil || total >= q.PerPage {
		return hits, total, err
	}
	corrected, err := s.correct(ctx, schema, words)
	if err != nil {
		return nil, 0, err
	}
	if corrected {
		kq.Terms = termsOf(words)
		hits, total, err = s.store.KeywordSearch(ctx, kq)
		if err != nil || total >= q.PerPage {
			return hits, total, err
		}
	}
	kq.Every = false
	return s.store.KeywordSearch(ctx, kq)
}

// queryWords splits text into at most maxTerms words and asks the store for
// their lexemes; the last word also matches as a prefix.
func (s *Searcher) queryWords(ctx context.Context, schema Schema, text string) ([]queryWord, error) {
	tokens := textnorm.Words(text)
	if len(tokens) > maxTerms {
		tokens = tokens[:maxTerms]
	}
	if len(tokens) == 0 {
		return nil, nil
	}
	lexemes, err := s.store.Lexemes(ctx, LexemeQuery{StemAccents: schema.StemAccents, Texts: tokens})
	if err != nil {
		return nil, err
	}
	words := make([]queryWord, len(tokens))
	for i, tok := range tokens {
		words[i].text = tok
		if alt := alternative(lexemes[i], i == len(tokens)-1); len(alt) > 0 {
			words[i].term = Term{alt}
		}
	}
	return words, nil
}

// correct adds to each word that no document knows the known words nearest
// to it, and reports whether any word got one.
func (s *Searcher) correct(ctx context.Context, schema Schema, words []queryWord) (bool, error) {
	cq := CorrectionQuery{Version: schema.Version, StemAccents: schema.StemAccents}
	var at []int
	for i, w := range words {
		if len(w.term) > 0 && utf8.RuneCountInString(w.text) >= correctionMinLength {
			cq.Words = append(cq.Words, CorrectionWord{Word: w.text, Term: w.term})
			at = append(at, i)
		}
	}
	if len(cq.Words) == 0 {
		return false, nil
	}
	corrections, err := s.store.Corrections(ctx, cq)
	if err != nil {
		return false, err
	}
	corrected := false
	for _, c := range corrections {
		if c.Index < 0 || c.Index >= len(at) {
			continue
		}
		if alt := alternative(c.Lexemes, false); len(alt) > 0 {
			w := &words[at[c.Index]]
			w.term = append(w.term, alt)
			corrected = true
		}
	}
	return corrected, nil
}

// alternative matches every one of lexemes, each also as a prefix when
// prefix is set.
func alternative(lexemes []string, prefix bool) Alternative {
	alt := make(Alternative, len(lexemes))
	for i, l := range lexemes {
		alt[i] = Lexeme{Text: l, Prefix: prefix}
	}
	return alt
}

// termsOf returns the terms of the words that have one.
func termsOf(words []queryWord) []Term {
	terms := make([]Term, 0, len(words))
	for _, w := range words {
		if len(w.term) > 0 {
			terms = append(terms, w.term)
		}
	}
	return terms
}
