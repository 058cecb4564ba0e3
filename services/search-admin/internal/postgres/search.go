package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/textnorm"
)

var _ catalog.SearchStore = (*Store)(nil)

// keywordSearch ranks the published Servicos of one version by ts_rank of
// their search documents (GIN index) with the default weights, so a hit in
// an A field counts ten times one in a D field. The filters read the
// Servico's status, agent-only flag, tema and orgaos copied onto each
// document (migration 00006), so the matches are filtered as they are read.
//
// The tsquery is a scalar subquery, built once per search: pgx prepares
// statements and Postgres soon switches them to a generic plan, where
// to_tsquery(search_unaccent($1)) written inline runs again for every
// candidate (half the query time at 10k).
//
// No enable_* switch may be added: a disabled node adds 1e10 to the plan's
// cost, far above jit_above_cost, and the JIT compile then takes hundreds
// of milliseconds (TestKeywordSearchPlanIsNotJITCompiled).
const keywordSearch = `
WITH ranked AS (
    SELECT d.servico_id AS id, ts_rank(d.document, (SELECT to_tsquery('portuguese', search_unaccent(@tsquery)))) AS score
    FROM search_documents d
    WHERE d.schema_version = @version AND d.document @@ (SELECT to_tsquery('portuguese', search_unaccent(@tsquery)))
      AND d.status = 1
      AND (@agents OR NOT d.agent_only)
      AND (@tema = '' OR d.tema_geral = @tema)
      AND (@orgao = '[]' OR d.orgao_gestor @> CAST(@orgao AS jsonb))
)
SELECT p.id::text AS id, p.score, t.total
FROM (SELECT count(*) AS total FROM ranked) t
LEFT JOIN LATERAL (SELECT id, score FROM ranked ORDER BY score DESC, id LIMIT @limit OFFSET @offset) p ON true`

// keywordRow is one row of keywordSearch: a hit of the page, or NULL when
// the page is empty, with the count of every visible match.
type keywordRow struct {
	ID    *string
	Score float64
	Total int
}

// corrections finds, for each word of a query that no search document of
// the version knows (as a prefix, for the last one), the known words most
// trigram-similar to it, nearest first from the GiST index; it keeps those
// within correctionMargin of the nearest, so a clear correction comes alone
// and does not widen the search. Stop words, short words and words the
// documents know get none; the unknown words are found first
// (MATERIALIZED), so only they are looked up.
const corrections = `
WITH unknown AS MATERIALIZED (
    SELECT q.position, q.word
    FROM unnest(string_to_array(@words, ' ')) WITH ORDINALITY AS q(word, position)
    CROSS JOIN LATERAL (
        SELECT to_tsquery('portuguese', search_unaccent(q.word || CASE WHEN q.position = @last THEN ':*' ELSE '' END)) AS query
    ) t
    WHERE length(q.word) >= @min_length AND numnode(t.query) > 0
      AND NOT EXISTS (SELECT 1 FROM search_documents d WHERE d.schema_version = @version AND d.document @@ t.query)
),
candidates AS (
    SELECT u.position, w.word, w.similarity, max(w.similarity) OVER (PARTITION BY u.position) AS best
    FROM unknown u
    CROSS JOIN LATERAL (
        SELECT sw.word, 1 - (sw.word <-> u.word) AS similarity
        FROM search_words sw
        ORDER BY sw.word <-> u.word
        LIMIT @per_word
    ) w
)
SELECT position, word FROM candidates
WHERE similarity >= @min_similarity AND similarity >= best - @margin
ORDER BY position, similarity DESC, word`

// Typo correction: a word shorter than correctionMinLength has too few
// trigrams to correct; up to correctionsPerWord known words whose trigram
// similarity reaches correctionMinSimilarity, and is within correctionMargin
// of the best, replace an unknown one.
const (
	correctionMinLength     = 4
	correctionMinSimilarity = 0.3
	correctionMargin        = 0.05
	correctionsPerWord      = 3
)

// KeywordSearch implements catalog.SearchStore. It matches every term
// first; when fewer than q.MinAllTerms visible Servicos match, it adds the
// known words similar to the terms no document knows (typos), matching
// every term again if any were found, and then any term.
func (s *Store) KeywordSearch(ctx context.Context, q catalog.KeywordQuery) ([]catalog.ScoredID, int, error) {
	if len(q.Terms) == 0 {
		return nil, 0, nil
	}
	if q.MinAllTerms > 0 {
		hits, total, err := s.keywordSearch(ctx, q, nil, true)
		if err != nil || total >= q.MinAllTerms {
			return hits, total, err
		}
	}
	alternatives, err := s.corrections(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	if q.MinAllTerms > 0 && alternatives != nil {
		hits, total, err := s.keywordSearch(ctx, q, alternatives, true)
		if err != nil || total >= q.MinAllTerms {
			return hits, total, err
		}
	}
	return s.keywordSearch(ctx, q, alternatives, false)
}

// keywordSearch runs keywordSearch matching every term of q or any term,
// each term or one of its alternatives, and returns the page and the
// number of visible matches.
func (s *Store) keywordSearch(ctx context.Context, q catalog.KeywordQuery, alternatives [][]string, every bool) ([]catalog.ScoredID, int, error) {
	args, err := keywordArgs(q, alternatives, every)
	if err != nil {
		return nil, 0, err
	}
	var rows []keywordRow
	if err := s.runKeywordSearch(ctx, "", args, &rows); err != nil {
		return nil, 0, mapError(fmt.Errorf("keyword search: %w", err))
	}
	out := make([]catalog.ScoredID, 0, len(rows))
	total := 0
	for _, r := range rows {
		total = r.Total
		if r.ID != nil {
			out = append(out, catalog.ScoredID{ID: *r.ID, Score: r.Score})
		}
	}
	return out, total, nil
}

// runKeywordSearch runs keywordSearch, after prefix (empty, or an EXPLAIN
// for tests), with args, scanning into dest. Planner settings, if ever
// needed, belong here so that the plan tests see them too.
func (s *Store) runKeywordSearch(ctx context.Context, prefix string, args map[string]any, dest any) error {
	return s.db.WithContext(ctx).Raw(prefix+keywordSearch, args).Scan(dest).Error
}

// correctionRow is one row of corrections: a known word similar to the
// query term at position (1-based).
type correctionRow struct {
	Position int
	Word     string
}

// corrections returns, per term of q, the known words that replace it, or
// nil when no term needs any.
func (s *Store) corrections(ctx context.Context, q catalog.KeywordQuery) ([][]string, error) {
	var rows []correctionRow
	if err := s.runCorrections(ctx, "", correctionArgs(q), &rows); err != nil {
		return nil, mapError(fmt.Errorf("typo corrections: %w", err))
	}
	var alternatives [][]string
	for _, r := range rows {
		// Words come from splitting folded text on anything but letters
		// and digits; one that would not survive the same split here could
		// carry tsquery syntax, so it is left out.
		if r.Position < 1 || r.Position > len(q.Terms) || !slices.Equal(textnorm.Words(r.Word), []string{r.Word}) {
			continue
		}
		if alternatives == nil {
			alternatives = make([][]string, len(q.Terms))
		}
		alternatives[r.Position-1] = append(alternatives[r.Position-1], r.Word)
	}
	return alternatives, nil
}

// runCorrections runs corrections like runKeywordSearch runs keywordSearch.
func (s *Store) runCorrections(ctx context.Context, prefix string, args map[string]any, dest any) error {
	return s.db.WithContext(ctx).Raw(prefix+corrections, args).Scan(dest).Error
}

// correctionArgs binds q to the named parameters of corrections. Terms
// hold letters and digits only, so a space separates them safely.
func correctionArgs(q catalog.KeywordQuery) map[string]any {
	return map[string]any{
		"words": strings.Join(q.Terms, " "), "last": len(q.Terms), "version": q.Version,
		"min_length": correctionMinLength, "min_similarity": correctionMinSimilarity, "margin": correctionMargin, "per_word": correctionsPerWord,
	}
}

// keywordArgs binds q to the named parameters of keywordSearch.
func keywordArgs(q catalog.KeywordQuery, alternatives [][]string, every bool) (map[string]any, error) {
	orgao := []string{}
	if q.Filter.OrgaoGestor != "" {
		orgao = append(orgao, q.Filter.OrgaoGestor)
	}
	orgaoJSON, err := json.Marshal(orgao)
	if err != nil {
		return nil, fmt.Errorf("encode orgao_gestor filter: %w", err)
	}
	return map[string]any{
		"tsquery": tsquery(q.Terms, alternatives, every), "version": q.Version,
		"agents": q.Filter.IncludeAgentOnly, "tema": q.Filter.TemaGeral, "orgao": string(orgaoJSON),
		"limit": q.Limit, "offset": q.Offset,
	}, nil
}

// tsquery joins words (letters and digits only, so no tsquery operator can
// slip in) with AND when every one must match, else with OR, where ranking
// rewards documents that match more of them; the last one is a prefix. A
// word with alternatives matches it or any of them.
func tsquery(terms []string, alternatives [][]string, every bool) string {
	op := " | "
	if every {
		op = " & "
	}
	parts := make([]string, len(terms))
	for i, term := range terms {
		if i == len(terms)-1 {
			term += ":*"
		}
		if i < len(alternatives) && len(alternatives[i]) > 0 {
			term = "(" + term + " | " + strings.Join(alternatives[i], " | ") + ")"
		}
		parts[i] = term
	}
	return strings.Join(parts, op)
}

// ServicosByID implements catalog.SearchStore.
func (s *Store) ServicosByID(ctx context.Context, ids []string) ([]catalog.Servico, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []servicoRow
	if err := s.db.WithContext(ctx).Where("id IN ?", ids).Find(&rows).Error; err != nil {
		return nil, mapError(fmt.Errorf("load servicos: %w", err))
	}
	out := make([]catalog.Servico, len(rows))
	for i, r := range rows {
		out[i] = *r.servico()
	}
	return out, nil
}
