package catalog

import (
	"context"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/municipal-apis/platform/services/search-admin/internal/textnorm"
)

// KeywordQuery is one full-text pass over the search documents of a version.
type KeywordQuery struct {
	Version string
	Terms   []Match
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

// CorrectionWord is a query word and the match it became; it is corrected
// only when no document of the version satisfies the match.
type CorrectionWord struct {
	Word  string
	Match Match
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

// queryWord is one word of a search (or of a synonym) and what it matches.
type queryWord struct {
	// text is the word folded; typed is the word as written, lowercase.
	text, typed string
	// inLexicon is set when text is a word of the lexicon: it is never
	// corrected. known is set when it is a word of the catalog.
	inLexicon, known bool
	// folded holds the lexemes of the folded word, which an incomplete
	// last word also matches as prefixes.
	folded []string
	// match is what the word matches in documents: any of its spellings,
	// numbers and corrections; zero for a stop word.
	match Match
	// forms are the folded words this one stands for (itself, its other
	// number, its corrections): synonym rules match on them.
	forms []string
}

// keywordRanking ranks the published Servicos for q by full text, with the
// synonym rules of revision applied, and reports the rules that fired.
// Every word must match first; when that fills no page (q.PerPage), the
// words that are no Portuguese word and that no document knows are
// corrected to the nearest catalog words and every word is tried again,
// and then any word matches.
func (s *Searcher) keywordRanking(ctx context.Context, schema Schema, revision int64, q SearchQuery, limit, offset int) ([]ScoredID, int, []FiredSynonym, error) {
	words, err := s.queryWords(ctx, schema, q.Text)
	if err != nil {
		return nil, 0, nil, err
	}
	rules, err := s.synonyms.rules(ctx, s, schema, revision)
	if err != nil {
		return nil, 0, nil, err
	}
	terms, fired := rules.expand(words)
	if len(terms) == 0 {
		return nil, 0, nil, nil
	}
	kq := KeywordQuery{Version: schema.Version, Terms: terms, Every: true, Filter: q.Filter, Limit: limit, Offset: offset}
	hits, total, err := s.keywordSearch(ctx, kq)
	if err != nil || total >= q.PerPage {
		return hits, total, fired, err
	}
	corrected, err := s.correctCached(ctx, schema, q.Text, &words)
	if err != nil {
		return nil, 0, nil, err
	}
	if corrected {
		kq.Terms, fired = rules.expand(words)
		hits, total, err = s.keywordSearch(ctx, kq)
		if err != nil || total >= q.PerPage {
			return hits, total, fired, err
		}
	}
	kq.Every = false
	hits, total, err = s.keywordSearch(ctx, kq)
	return hits, total, fired, err
}

// keywordSearch runs one full-text pass. When the replica's lexical index
// holds the version, it counts the matches and orders them in blocks of
// KeywordCandidates: the matches are put in the order of the index's cheap
// score (ties by id), cut into blocks, and each block is ranked by ts_rank
// from the positions the index holds (or by Postgres, when the query is
// one only Postgres can rank). A page ranks only the one or two blocks it
// overlaps, so the cost stays bounded however many match, and every page
// is a slice of one order: paging never shows a match twice or skips one.
// Otherwise (a catalog the index does not hold yet) Postgres ranks and
// counts every match.
func (s *Searcher) keywordSearch(ctx context.Context, kq KeywordQuery) ([]ScoredID, int, error) {
	size := s.cfg.KeywordCandidates
	if size <= 0 || kq.Limit <= 0 {
		return s.store.KeywordSearch(ctx, kq)
	}
	depth := kq.Offset + kq.Limit
	blocks := (depth + size - 1) / size
	ids, total, ok := s.index.KeywordCandidates(kq.Version, kq.Terms, kq.Every, kq.Filter, blocks*size)
	if !ok {
		return s.store.KeywordSearch(ctx, kq)
	}
	var page []ScoredID
	for b := kq.Offset / size; b < blocks && b*size < len(ids); b++ {
		from, to := b*size, min((b+1)*size, len(ids))
		block := kq
		block.Offset = max(kq.Offset-from, 0)
		block.Limit = min(depth, to) - max(kq.Offset, from)
		hits, err := s.rankBlock(ctx, block, ids[from:to])
		if err != nil {
			return nil, 0, err
		}
		page = append(page, hits...)
	}
	return page, total, nil
}

// rankBlock ranks the candidates ids by ts_rank and returns the page of
// them kq's limit and offset name: in the replica from the positions its
// index holds, or in Postgres for a query only Postgres ranks.
func (s *Searcher) rankBlock(ctx context.Context, kq KeywordQuery, ids []string) ([]ScoredID, error) {
	if hits, ranked := s.index.RankKeywords(kq.Version, kq.Terms, kq.Every, ids, kq.Limit, kq.Offset); ranked {
		return hits, nil
	}
	return s.store.RankKeywordCandidates(ctx, kq, ids)
}

// queryWords splits text into at most maxTerms words and analyzes them,
// from the replica's cache of analyses when the catalog has not changed
// since (see analysisCache).
// The last word is also a prefix while it is incomplete: text does not end
// after it, and it is no word of the lexicon or the catalog.
func (s *Searcher) queryWords(ctx context.Context, schema Schema, text string) ([]queryWord, error) {
	gen := s.index.Fingerprint()
	if words, ok := s.analyses.get(gen, schema.Version, text); ok {
		return words, nil
	}
	words, err := s.analyzeQuery(ctx, schema, text)
	if err == nil {
		s.analyses.put(gen, schema.Version, text, words)
	}
	return cloneWords(words), err
}

// analyzeQuery is queryWords without the cache.
func (s *Searcher) analyzeQuery(ctx context.Context, schema Schema, text string) ([]queryWord, error) {
	tokens := textnorm.Tokens(text)
	if len(tokens) > maxTerms {
		tokens = tokens[:maxTerms]
	}
	words, err := s.analyze(ctx, schema, [][]string{tokens})
	if err != nil || len(tokens) == 0 {
		return nil, err
	}
	last := &words[0][len(tokens)-1]
	if !last.known && !last.inLexicon && incomplete(text, last.text) {
		last.match = last.match.or(allOf(last.folded, true))
	}
	return words[0], nil
}

// analyze asks the store, in one round trip, for the lexemes of every word
// of every token list: of the word folded, and of its spellings and its
// other number in the lexicon (stemmed as written, in a schema that stems
// accents).
func (s *Searcher) analyze(ctx context.Context, schema Schema, lists [][]string) ([][]queryWord, error) {
	var lq LexemeQuery
	out := make([][]queryWord, len(lists))
	var ranges [][2]int
	for li, tokens := range lists {
		out[li] = make([]queryWord, len(tokens))
		for i, tok := range tokens {
			w := queryWord{text: textnorm.Fold(tok), typed: tok}
			w.inLexicon = s.lexicon.Known(w.text)
			start := len(lq.Texts)
			lq.Texts = append(lq.Texts, LexemeText{Text: w.text})
			w.forms = []string{w.text}
			for _, v := range s.variants(w) {
				t := LexemeText{Text: v, StemAccents: true}
				if !schema.StemAccents {
					t = LexemeText{Text: textnorm.Fold(v)}
				}
				if !slices.Contains(lq.Texts[start:], t) {
					lq.Texts = append(lq.Texts, t)
				}
				if f := textnorm.Fold(v); !slices.Contains(w.forms, f) {
					w.forms = append(w.forms, f)
				}
			}
			out[li][i] = w
			ranges = append(ranges, [2]int{start, len(lq.Texts)})
		}
	}
	if len(lq.Texts) == 0 {
		return out, nil
	}
	found, err := s.store.Lexemes(ctx, lq)
	if err != nil {
		return nil, err
	}
	n := 0
	for li := range out {
		for i := range out[li] {
			w, r := &out[li][i], ranges[n]
			n++
			w.known, w.folded = found[r[0]].Known, found[r[0]].Lexemes
			if len(w.folded) == 0 {
				continue // a stop word, even when a spelling of it is not ("de", "dê")
			}
			for _, l := range found[r[0]:r[1]] {
				w.match = w.match.or(allOf(l.Lexemes, false))
			}
		}
	}
	return out, nil
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

// correctCached is correct for the words of text, as queryWords returned
// them, from the replica's cache when the catalog has not changed since:
// the corrections of a text depend on the same things as its analysis.
func (s *Searcher) correctCached(ctx context.Context, schema Schema, text string, words *[]queryWord) (bool, error) {
	gen := s.index.Fingerprint()
	if c, ok := s.analyses.getCorrected(gen, schema.Version, text); ok {
		*words = c.words
		return c.corrected, nil
	}
	corrected, err := s.correct(ctx, schema, *words)
	if err == nil {
		s.analyses.putCorrected(gen, schema.Version, text, correction{words: *words, corrected: corrected})
	}
	return corrected, err
}

// analysisCache keeps the analyzed words of recent query texts, so a
// repeated query skips the round trip that asks Postgres for their
// lexemes, and their typo corrections once a search needed them. An
// analysis depends on the text, the schema version and the catalog's
// vocabulary (whether the last word is a catalog word decides whether it
// is a prefix; which words are unknown and their nearest known ones decide
// the corrections), so entries are kept for one fingerprint of the
// replica's index: any create, update or delete the index receives
// empties the cache. Synonym rules are applied after it and are not in it.
type analysisCache struct {
	mu          sync.Mutex
	gen         Fingerprint
	entries     map[analysisKey][]queryWord
	corrections map[analysisKey]correction
}

// correction is the words of a text after typo correction, and whether
// any word got one.
type correction struct {
	words     []queryWord
	corrected bool
}

type analysisKey struct{ version, text string }

// maxAnalyses bounds the cache; a full cache starts over.
const maxAnalyses = 4096

func (c *analysisCache) get(gen Fingerprint, version, text string) ([]queryWord, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil, false
	}
	words, ok := c.entries[analysisKey{version, text}]
	if !ok {
		return nil, false
	}
	return cloneWords(words), true
}

func (c *analysisCache) put(gen Fingerprint, version, text string, words []queryWord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.startOverUnless(gen)
	c.entries[analysisKey{version, text}] = cloneWords(words)
}

func (c *analysisCache) getCorrected(gen Fingerprint, version, text string) (correction, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return correction{}, false
	}
	got, ok := c.corrections[analysisKey{version, text}]
	return correction{words: cloneWords(got.words), corrected: got.corrected}, ok
}

func (c *analysisCache) putCorrected(gen Fingerprint, version, text string, cr correction) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.startOverUnless(gen)
	c.corrections[analysisKey{version, text}] = correction{words: cloneWords(cr.words), corrected: cr.corrected}
}

// startOverUnless empties the cache unless it holds entries of gen and
// has room; the caller holds mu.
func (c *analysisCache) startOverUnless(gen Fingerprint) {
	if c.gen != gen || c.entries == nil || len(c.entries)+len(c.corrections) >= maxAnalyses {
		c.gen, c.entries, c.corrections = gen, map[analysisKey][]queryWord{}, map[analysisKey]correction{}
	}
}

// cloneWords copies words deep enough that typo correction, which
// replaces a word's match and adds to its forms, leaves the original alone.
func cloneWords(words []queryWord) []queryWord {
	if words == nil {
		return nil
	}
	out := slices.Clone(words)
	for i := range out {
		out[i].forms = slices.Clone(out[i].forms)
	}
	return out
}

// incomplete reports whether the last word, folded, may still be being
// typed: nothing follows it in text and it is long enough to be a prefix.
func incomplete(text, last string) bool {
	r, _ := utf8.DecodeLastRuneInString(text)
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && utf8.RuneCountInString(last) >= prefixMinLength
}

// correct adds to each word that is no word of the lexicon and that no
// document knows the catalog's words nearest to it, and reports whether any
// word got one. A real word the catalog does not contain is left alone:
// "correcting" it to the nearest catalog word changes its meaning.
func (s *Searcher) correct(ctx context.Context, schema Schema, words []queryWord) (bool, error) {
	cq := CorrectionQuery{Version: schema.Version, StemAccents: schema.StemAccents}
	var at []int
	for i, w := range words {
		if !w.match.IsZero() && !w.inLexicon && utf8.RuneCountInString(w.text) >= correctionMinLength {
			cq.Words = append(cq.Words, CorrectionWord{Word: w.text, Match: w.match})
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
		if next := w.match.or(allOf(c.Lexemes, false)); next.key() != w.match.key() {
			w.match, corrected = next, true
			if !slices.Contains(w.forms, c.Word) {
				w.forms = append(w.forms, c.Word)
			}
		}
	}
	return corrected, nil
}
