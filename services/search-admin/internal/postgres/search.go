package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

var _ catalog.SearchStore = (*Store)(nil)

// keywordSearch ranks the published Servicos of one version. Full-text
// matches (GIN index) score ts_rank with the default weights, so a hit in an
// A field counts ten times one in a D field. Servicos whose folded name and
// summary (generated column search_text) are trigram-similar to the query
// (GIN trigram index) catch typos and add a share of the word similarity of
// their folded name (search_name); only those few pay for it.
//
// The tsquery is a scalar subquery, built once per search: pgx prepares
// statements and Postgres soon switches them to a generic plan, where
// to_tsquery(search_unaccent($1)) written inline runs again for every
// candidate (half the query time at 10k).
//
// The candidates are then checked against the filters one by one through
// servicos_pkey: OFFSET 0 keeps the LATERAL subquery from being flattened
// into a join, which the planner would otherwise hash against every
// published Servico (~10 ms at 10k, against ~3 ms for the lookups). No
// enable_* switch is needed, and none may be added: a disabled node adds
// 1e10 to the plan's cost, far above jit_above_cost, and the JIT compile
// then takes hundreds of milliseconds (TestKeywordSearchPlanIsNotJITCompiled).
const keywordSearch = `
WITH fulltext AS (
    SELECT d.servico_id AS id, ts_rank(d.document, (SELECT to_tsquery('portuguese', search_unaccent(@tsquery)))) AS rank
    FROM search_documents d
    WHERE d.schema_version = @version AND d.document @@ (SELECT to_tsquery('portuguese', search_unaccent(@tsquery)))
),
trigram AS (
    SELECT s.id, word_similarity(@text, s.search_name) AS similarity
    FROM servicos s
    WHERE @typos AND @text <% s.search_text
      AND EXISTS (SELECT 1 FROM search_documents d WHERE d.servico_id = s.id AND d.schema_version = @version)
),
candidates AS (
    SELECT COALESCE(f.id, t.id) AS id, COALESCE(f.rank, 0) + @trgm_weight * COALESCE(t.similarity, 0) AS score,
           f.id IS NOT NULL AS fulltext
    FROM fulltext f
    FULL JOIN trigram t ON t.id = f.id
),
ranked AS (
    SELECT c.id, c.score, c.fulltext
    FROM candidates c
    CROSS JOIN LATERAL (
        SELECT 1 FROM servicos s
        WHERE s.id = c.id
          AND s.status = 1
          AND (@agents OR NOT COALESCE(s.agents -> 'exclusive_for_agents' = 'true'::jsonb, false))
          AND (@tema = '' OR s.tema_geral = @tema)
          AND (@orgao = '[]' OR s.orgao_gestor @> CAST(@orgao AS jsonb))
        OFFSET 0
    ) visible
)
SELECT p.id::text AS id, p.score, t.total, t.fulltext
FROM (SELECT count(*) AS total, count(*) FILTER (WHERE fulltext) AS fulltext FROM ranked) t
LEFT JOIN LATERAL (SELECT id, score FROM ranked ORDER BY score DESC, id LIMIT @limit OFFSET @offset) p ON true`

// trigramWeight scales the trigram similarity (0..1) against ts_rank.
const trigramWeight = 0.1

// keywordRow is one row of keywordSearch: a hit of the page, or NULL when
// the page is empty, with the counts of every visible match.
type keywordRow struct {
	ID       *string
	Score    float64
	Total    int
	Fulltext int
}

// KeywordSearch implements catalog.SearchStore: it matches every term
// first, and any term when fewer than q.MinAllTerms visible Servicos match
// every term in full text.
func (s *Store) KeywordSearch(ctx context.Context, q catalog.KeywordQuery) ([]catalog.ScoredID, int, error) {
	if len(q.Terms) == 0 {
		return nil, 0, nil
	}
	if q.MinAllTerms > 0 {
		hits, total, fulltext, err := s.keywordSearch(ctx, q, true)
		if err != nil || fulltext >= q.MinAllTerms {
			return hits, total, err
		}
	}
	hits, total, _, err := s.keywordSearch(ctx, q, false)
	return hits, total, err
}

// keywordSearch runs keywordSearch matching every term of q or any term,
// and returns the page, the number of visible matches and how many of them
// are full-text matches.
func (s *Store) keywordSearch(ctx context.Context, q catalog.KeywordQuery, every bool) ([]catalog.ScoredID, int, int, error) {
	args, err := keywordArgs(q, every)
	if err != nil {
		return nil, 0, 0, err
	}
	var rows []keywordRow
	if err := s.runKeywordSearch(ctx, "", args, &rows); err != nil {
		return nil, 0, 0, mapError(fmt.Errorf("keyword search: %w", err))
	}
	out := make([]catalog.ScoredID, 0, len(rows))
	total, fulltext := 0, 0
	for _, r := range rows {
		total, fulltext = r.Total, r.Fulltext
		if r.ID != nil {
			out = append(out, catalog.ScoredID{ID: *r.ID, Score: r.Score})
		}
	}
	return out, total, fulltext, nil
}

// runKeywordSearch runs keywordSearch, after prefix (empty, or an EXPLAIN
// for tests), with args, scanning into dest. Planner settings, if ever
// needed, belong here so that the plan tests see them too.
func (s *Store) runKeywordSearch(ctx context.Context, prefix string, args map[string]any, dest any) error {
	return s.db.WithContext(ctx).Raw(prefix+keywordSearch, args).Scan(dest).Error
}

// keywordArgs binds q to the named parameters of keywordSearch. Matching
// every term leaves the trigram branch out: a query whose words all match a
// page of documents has no typo to catch, and the branch's word_similarity
// rechecks cost up to 9 ms at 10k.
func keywordArgs(q catalog.KeywordQuery, every bool) (map[string]any, error) {
	orgao := []string{}
	if q.Filter.OrgaoGestor != "" {
		orgao = append(orgao, q.Filter.OrgaoGestor)
	}
	orgaoJSON, err := json.Marshal(orgao)
	if err != nil {
		return nil, fmt.Errorf("encode orgao_gestor filter: %w", err)
	}
	return map[string]any{
		"tsquery": tsquery(q.Terms, every), "typos": !every, "text": q.Text, "version": q.Version, "trgm_weight": trigramWeight,
		"agents": q.Filter.IncludeAgentOnly, "tema": q.Filter.TemaGeral, "orgao": string(orgaoJSON),
		"limit": q.Limit, "offset": q.Offset,
	}, nil
}

// tsquery joins words (letters and digits only, so no tsquery operator can
// slip in) with AND when every one must match, else with OR, where ranking
// rewards documents that match more of them; the last one is a prefix.
func tsquery(terms []string, every bool) string {
	if every {
		return strings.Join(terms, " & ") + ":*"
	}
	return strings.Join(terms, " | ") + ":*"
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
