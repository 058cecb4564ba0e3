package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Search modes.
const (
	ModeKeyword  = "keyword"
	ModeSemantic = "semantic"
	ModeHybrid   = "hybrid"
)

// maxTerms bounds the words of a query that reach the full-text search.
const maxTerms = 16

// SearchQuery is a validated public search request.
type SearchQuery struct {
	// Text is the query as sent, without leading space; a trailing space
	// or punctuation completes its last word.
	Text    string
	Mode    string
	Filter  SearchFilter
	Page    int
	PerPage int
}

// SearchStore is the Postgres side of search.
type SearchStore interface {
	// SearchSettings reads the search-schema version search uses now and
	// the revision of the synonym rules.
	SearchSettings(ctx context.Context) (SearchSettings, error)
	// AllSynonyms returns every synonym rule.
	AllSynonyms(ctx context.Context) ([]Synonym, error)
	// Lexemes returns the lexemes of each of q.Texts as search documents
	// store them, folded to letters and digits, in the order of q.Texts.
	Lexemes(ctx context.Context, q LexemeQuery) ([]Lexemes, error)
	// Corrections returns, for the words of q that no document of the
	// version matches, the known words nearest to them.
	Corrections(ctx context.Context, q CorrectionQuery) ([]Correction, error)
	// KeywordSearch ranks the published Servicos whose version document
	// matches q, best first, and counts every match.
	KeywordSearch(ctx context.Context, q KeywordQuery) ([]ScoredID, int, error)
	// RankKeywordCandidates ranks like KeywordSearch only the Servicos
	// ids (those still matching q) and returns the page q asks for.
	RankKeywordCandidates(ctx context.Context, q KeywordQuery, ids []string) ([]ScoredID, error)
	// ServicosByID returns the Servicos ids, without documents, in any
	// order, and the search settings as the same snapshot holds them.
	ServicosByID(ctx context.Context, ids []string) ([]Servico, SearchSettings, error)
}

// SearchSettings is what every search ranks by: the schema version it
// ranks in and the revision of the synonym rules, which grows with every
// write to them.
type SearchSettings struct {
	Version          string
	SynonymsRevision int64
}

// SearchConfig tunes ranking.
type SearchConfig struct {
	// MinSimilarity is the cosine below which a vector is not a semantic match.
	MinSimilarity float64 `env:"SEARCH_MIN_SIMILARITY, default=0.2"`
	// Candidates is how many of each ranking hybrid search fuses.
	Candidates int `env:"SEARCH_HYBRID_CANDIDATES, default=200"`
	// KeywordCandidates bounds the matches keyword ranking scores exactly:
	// when more match, the replica's lexical index orders them by a cheap
	// score in blocks of this many and ranks each block a page overlaps by
	// ts_rank (see keywordSearch); 0 ranks every match in Postgres.
	KeywordCandidates int `env:"SEARCH_KEYWORD_CANDIDATES, default=200"`
	// SemanticWeight is the share of the semantic score in a hybrid score,
	// from 0 (keyword ranking, semantic matches after it) to 1; unset, the
	// embedding provider's (embedding.SemanticWeight).
	SemanticWeight *float64 `env:"SEARCH_SEMANTIC_WEIGHT, noinit"`
}

// Validate reports settings that cannot work.
func (c SearchConfig) Validate() error {
	// Written so that NaN, which every comparison fails, fails them too.
	if !(c.MinSimilarity >= -1 && c.MinSimilarity <= 1) || c.Candidates <= 0 {
		return errors.New("SEARCH_MIN_SIMILARITY must be within [-1, 1] and SEARCH_HYBRID_CANDIDATES positive")
	}
	if c.KeywordCandidates < 0 {
		return errors.New("SEARCH_KEYWORD_CANDIDATES must not be negative")
	}
	if w := c.SemanticWeight; w != nil && !(*w >= 0 && *w <= 1) {
		return errors.New("SEARCH_SEMANTIC_WEIGHT must be within [0, 1]")
	}
	return nil
}

// Searcher answers public searches: keyword ranking in Postgres, semantic
// ranking over the replica's in-memory vectors, and their fusion.
type Searcher struct {
	store    SearchStore
	index    *VectorIndex
	sync     *VectorSync
	schemas  *Registry
	embedder Embedder
	lexicon  Lexicon
	synonyms synonymCache
	analyses analysisCache
	// settings are those the last search saw (see Search).
	settings atomic.Pointer[SearchSettings]
	cfg      SearchConfig
	log      *slog.Logger
}

// Lexicon knows the words of the language of the catalog (Brazilian
// Portuguese), by their folded form: lowercase, without accents.
type Lexicon interface {
	// Known reports whether folded is a word.
	Known(folded string) bool
	// IsWord reports whether w, lowercase with its accents, is a word.
	IsWord(w string) bool
	// Spellings returns the words, accents included, whose folded form is folded.
	Spellings(folded string) []string
	// Numbers returns the singular of a plural or the plurals of a singular.
	Numbers(folded string) []string
}

// NewSearcher wires a Searcher.
func NewSearcher(store SearchStore, index *VectorIndex, sync *VectorSync, schemas *Registry, embedder Embedder, lexicon Lexicon, cfg SearchConfig, log *slog.Logger) *Searcher {
	return &Searcher{store: store, index: index, sync: sync, schemas: schemas, embedder: embedder, lexicon: lexicon, cfg: cfg, log: log}
}

// Search ranks the published Servicos for q in the current schema version
// and returns the page q asks for.
//
// It ranks in the settings the last search saw, without reading them
// first, while the replica's index holds their version (a switch reloads
// it): the query that loads the page reads them again in its snapshot, and
// when they changed meanwhile (a switch, a rollback, a synonym edit) the
// search runs again in the new ones. So an answer is never older than
// one read at the start would be, and a search costs a round trip less.
func (s *Searcher) Search(ctx context.Context, q SearchQuery) (SearchResult, error) {
	settings, ok := s.lastSettings()
	if !ok {
		var err error
		if settings, err = s.store.SearchSettings(ctx); err != nil {
			return SearchResult{}, err
		}
	}
	res, seen, err := s.searchIn(ctx, q, settings)
	if err == nil && seen != settings {
		res, seen, err = s.searchIn(ctx, q, seen)
	}
	if err == nil {
		s.settings.Store(&seen)
	}
	return res, err
}

// lastSettings returns the settings the last search saw, unless there are
// none yet or the index holds another version.
func (s *Searcher) lastSettings() (SearchSettings, bool) {
	last := s.settings.Load()
	if last == nil || last.Version != s.index.Version() {
		return SearchSettings{}, false
	}
	return *last, true
}

// searchIn is one search in settings; it returns the settings the page's
// snapshot holds.
func (s *Searcher) searchIn(ctx context.Context, q SearchQuery, settings SearchSettings) (SearchResult, SearchSettings, error) {
	schema, err := s.schemas.Lookup(settings.Version)
	if err != nil {
		return SearchResult{}, settings, err
	}
	res := SearchResult{Meta: SearchMeta{Page: q.Page, PerPage: q.PerPage, SchemaVersion: schema.Version, Mode: q.Mode}}
	offset := (q.Page - 1) * q.PerPage
	var ranked []rankedHit
	switch q.Mode {
	case ModeKeyword:
		ranked, res.Meta.Total, res.Meta.Synonyms, err = s.keywordPage(ctx, schema, settings.SynonymsRevision, q, offset)
	case ModeSemantic:
		ranked, res.Meta.Total, err = s.semanticPage(ctx, schema, q, offset)
	default:
		var h hybrid
		h, err = s.hybridPage(ctx, schema, settings.SynonymsRevision, q, offset)
		ranked, res.Meta.Total, res.Meta.TotalIsLowerBound, res.Meta.Degraded = h.page, h.total, h.truncated, h.degraded
		res.Meta.Synonyms = h.synonyms
	}
	if err != nil {
		return SearchResult{}, settings, err
	}
	res.Data, settings, err = s.hits(ctx, ranked, q.Filter)
	// What the page left out (see hits) is not counted either. On the page
	// that holds the last match, total is what the pages hold: a match
	// counted from the index just before a write took it out of it (the
	// ranking then dropped it) is not counted there either.
	if offset < res.Meta.Total && res.Meta.Total <= offset+q.PerPage {
		res.Meta.Total = offset + len(res.Data)
	} else {
		res.Meta.Total -= len(ranked) - len(res.Data)
	}
	return res, settings, err
}

func (s *Searcher) keywordPage(ctx context.Context, schema Schema, revision int64, q SearchQuery, offset int) ([]rankedHit, int, []FiredSynonym, error) {
	ids, total, fired, err := s.keywordRanking(ctx, schema, revision, q, q.PerPage, offset)
	if err != nil {
		return nil, 0, nil, err
	}
	return single(ids, true), total, fired, nil
}

func (s *Searcher) semanticPage(ctx context.Context, schema Schema, q SearchQuery, offset int) ([]rankedHit, int, error) {
	ids, total, err := s.nearest(ctx, schema, q, offset+q.PerPage, math.MaxInt)
	if err != nil {
		return nil, 0, problem.Wrap(problem.EUNAVAILABLE, err, "semantic ranking is unavailable right now")
	}
	return pageOf(single(ids, false), offset, q.PerPage), total, nil
}

// hybrid is one page of a hybrid search: its hits, how many the fused
// ranking holds, whether more Servicos matched than were fused, and whether
// the semantic ranking was missing.
type hybrid struct {
	page      []rankedHit
	total     int
	truncated bool
	degraded  bool
	synonyms  []FiredSynonym
}

// hybridPage fuses the top candidates of both rankings; when the query
// cannot be embedded it answers with the keyword ranking alone, degraded.
// Only the fused candidates can be paged, so they are the total, marked
// truncated when either ranking matched more than it handed over.
// The query is embedded and the vectors scanned while the keywords are
// ranked, so hybrid costs about the slower of the two, not their sum.
func (s *Searcher) hybridPage(ctx context.Context, schema Schema, revision int64, q SearchQuery, offset int) (hybrid, error) {
	semCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var sem []ScoredID
	var semTotal int
	var semErr error
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		// Only whether more matched than the candidates counts here.
		sem, semTotal, semErr = s.nearest(semCtx, schema, q, s.cfg.Candidates, s.cfg.Candidates+1)
	}()
	kw, kwTotal, fired, err := s.keywordRanking(ctx, schema, revision, q, s.cfg.Candidates, 0)
	if err != nil {
		cancel()
	}
	<-scanned
	if err != nil {
		return hybrid{}, err
	}
	h := hybrid{degraded: semErr != nil, truncated: kwTotal > len(kw) || semTotal > len(sem), synonyms: fired}
	if h.degraded {
		s.log.WarnContext(ctx, "semantic ranking failed, answering with keyword ranking", "err", semErr)
	}
	fused := fuse(kw, sem, s.semanticWeight())
	h.page, h.total = pageOf(fused, offset, q.PerPage), len(fused)
	return h, nil
}

// semanticWeight is the configured share of the semantic score, or none.
func (s *Searcher) semanticWeight() float64 {
	if s.cfg.SemanticWeight == nil {
		return 0
	}
	return *s.cfg.SemanticWeight
}

// nearest embeds the query with the schema's model and scans the in-memory
// vectors, reloading them first when they hold another version; the
// matches are counted exactly up to countTo (see VectorIndex.Nearest).
func (s *Searcher) nearest(ctx context.Context, schema Schema, q SearchQuery, k, countTo int) ([]ScoredID, int, error) {
	if err := s.sync.EnsureVersion(ctx, schema.Version); err != nil {
		return nil, 0, err
	}
	vec, err := s.embedder.Embed(ctx, q.Text, schema.Dimensions)
	if err != nil {
		return nil, 0, fmt.Errorf("embed the query: %w", err)
	}
	ids, total := s.index.Nearest(vec, q.Filter, float32(s.cfg.MinSimilarity), k, countTo)
	return ids, total, nil
}

// hits loads the Servicos of ranked, in rank order, without their
// documents, and returns the settings the snapshot that loaded them holds.
func (s *Searcher) hits(ctx context.Context, ranked []rankedHit, f SearchFilter) ([]Hit, SearchSettings, error) {
	ids := make([]string, len(ranked))
	for i, r := range ranked {
		ids[i] = r.ID
	}
	found, settings, err := s.store.ServicosByID(ctx, ids)
	if err != nil {
		return nil, settings, err
	}
	byID := make(map[string]*Servico, len(found))
	for i := range found {
		byID[found[i].ID] = &found[i]
	}
	out := make([]Hit, 0, len(ranked))
	for _, r := range ranked {
		// Deleted between ranking and loading, or no longer one the search
		// may show: skipped. The ranking read the replica's index, which a
		// write refreshes only after its commit (on other replicas, at the
		// notification), while the rows are read as they are now: a Servico
		// unpublished or made agent-only meanwhile would show its new
		// contents to a caller not allowed to see them.
		if sv, ok := byID[r.ID]; ok && f.admits(sv) {
			out = append(out, Hit{Servico: *sv, Score: r.Score, Scores: r.Scores})
		}
	}
	return out, settings, nil
}
