package catalog

import (
	"context"
	"slices"
	"unicode"
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

// LexemeQuery asks for the lexemes of texts as search documents store them.
type LexemeQuery struct {
	Texts []LexemeText
}

// LexemeText is one text to fold into lexemes, one of two ways.
type LexemeText struct {
	Text string
	// StemAccents stems the text as written and then folds the stems;
	// otherwise the text is folded and then stemmed.
	StemAccents bool
}

// Lexemes are the lexemes of one LexemeText, and whether the folded text
// is a word of the catalog's vocabulary (search_words).
type Lexemes struct {
	Lexemes []string
	Known   bool
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
// have too few trigrams to correct. An incomplete last word shorter than
// prefixMinLength matches too many words to be a prefix.
const (
	correctionMinLength = 4
	prefixMinLength     = 3
)

// queryWord is one word of a search and the full-text term it became
// (empty for a stop word).
type queryWord struct {
	// text is the word folded; typed is the word as written, lowercase.
	text, typed string
	// inLexicon is set when text is a word of the lexicon: it is never
	// corrected.
	inLexicon bool
	term      Term
}

// keywordRanking ranks the published Servicos for q by full text. Every
// word must match first; when that fills no page (q.PerPage), the words
// that are no Portuguese word and that no document knows are corrected to
// the nearest catalog words and every word is tried again, and then any
// word matches.
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
// the lexemes of each: of the word folded, and of its spellings and its
// other number in the lexicon (stemmed as written, in a schema that stems
// accents). The last word is also a prefix while it is incomplete: text
// does not end after it, and it is no word of the lexicon or the catalog.
func (s *Searcher) queryWords(ctx context.Context, schema Schema, text string) ([]queryWord, error) {
	tokens := textnorm.Tokens(text)
	if len(tokens) > maxTerms {
		tokens = tokens[:maxTerms]
	}
	if len(tokens) == 0 {
		return nil, nil
	}
	words := make([]queryWord, len(tokens))
	var lq LexemeQuery
	first := make([]int, len(tokens)+1)
	for i, tok := range tokens {
		w := queryWord{text: textnorm.Fold(tok), typed: tok}
		w.inLexicon = s.lexicon.Known(w.text)
		words[i] = w
		first[i] = len(lq.Texts)
		lq.Texts = append(lq.Texts, LexemeText{Text: w.text})
		for _, v := range s.variants(w) {
			t := LexemeText{Text: v, StemAccents: true}
			if !schema.StemAccents {
				t = LexemeText{Text: textnorm.Fold(v)}
			}
			if !slices.Contains(lq.Texts[first[i]:], t) {
				lq.Texts = append(lq.Texts, t)
			}
		}
	}
	first[len(tokens)] = len(lq.Texts)
	found, err := s.store.Lexemes(ctx, lq)
	if err != nil {
		return nil, err
	}
	for i := range words {
		w := &words[i]
		folded := found[first[i]]
		prefix := i == len(words)-1 && !folded.Known && !w.inLexicon && incomplete(text, w.text)
		w.term = addAlternative(w.term, alternative(folded.Lexemes, prefix))
		for _, l := range found[first[i]+1 : first[i+1]] {
			w.term = addAlternative(w.term, alternative(l.Lexemes, false))
		}
	}
	return words, nil
}

// variants returns the words w may stand for: its spelling as typed when
// that has accents and is a word, else every spelling of the folded word
// (the accents a citizen left out), and the other number of the word; the
// word as typed when the lexicon knows none of them.
func (s *Searcher) variants(w queryWord) []string {
	var out []string
	if w.typed != w.text && s.lexicon.IsWord(w.typed) {
		out = append(out, w.typed)
	} else {
		out = append(out, s.lexicon.Spellings(w.text)...)
	}
	if len(out) == 0 {
		return []string{w.typed}
	}
	for _, n := range s.lexicon.Numbers(w.text) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// incomplete reports whether the last word, folded, may still be being
// typed: nothing follows it in text and it is long enough to be a prefix.
func incomplete(text, last string) bool {
	r, _ := utf8.DecodeLastRuneInString(text)
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && utf8.RuneCountInString(last) >= prefixMinLength
}

// addAlternative adds alt to term unless it is empty or already there.
func addAlternative(term Term, alt Alternative) Term {
	if len(alt) == 0 || slices.ContainsFunc(term, func(a Alternative) bool { return slices.Equal(a, alt) }) {
		return term
	}
	return append(term, alt)
}

// correct adds to each word that is no word of the lexicon and that no
// document knows the catalog's words nearest to it, and reports whether any
// word got one. A real word the catalog does not contain is left alone:
// "correcting" it to the nearest catalog word changes its meaning.
func (s *Searcher) correct(ctx context.Context, schema Schema, words []queryWord) (bool, error) {
	cq := CorrectionQuery{Version: schema.Version, StemAccents: schema.StemAccents}
	var at []int
	for i, w := range words {
		if len(w.term) > 0 && !w.inLexicon && utf8.RuneCountInString(w.text) >= correctionMinLength {
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
		w := &words[at[c.Index]]
		if next := addAlternative(w.term, alternative(c.Lexemes, false)); len(next) > len(w.term) {
			w.term, corrected = next, true
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
