package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

var _ catalog.SearchStore = (*Store)(nil)

// keywordSearch ranks the published Servicos of one version. Candidates are
// documents matching the tsquery (GIN index) plus Servicos whose name and
// summary are trigram-similar to the query (GIN trigram index), which
// catches typos. The score is ts_rank with the default weights (a hit in an
// A field counts ten times one in a D field) plus a share of the trigram
// word similarity of nome_servico.
const keywordSearch = `
WITH q AS (SELECT to_tsquery('portuguese', search_unaccent(@tsquery)) AS query),
candidates AS (
    SELECT d.servico_id AS id FROM search_documents d, q
    WHERE d.schema_version = @version AND d.document @@ q.query
    UNION
    SELECT s.id FROM servicos s WHERE @text <% search_unaccent(lower(s.nome_servico || ' ' || s.resumo))
),
ranked AS (
    SELECT s.id,
        ts_rank(d.document, q.query) + @trgm_weight * word_similarity(@text, search_unaccent(lower(s.nome_servico))) AS score
    FROM candidates c
    JOIN servicos s ON s.id = c.id
    JOIN search_documents d ON d.servico_id = s.id AND d.schema_version = @version
    CROSS JOIN q
    WHERE s.status = 1
      AND (@agents OR NOT COALESCE(s.agents -> 'exclusive_for_agents' = 'true'::jsonb, false))
      AND (@tema = '' OR s.tema_geral = @tema)
      AND (@orgao = '[]' OR s.orgao_gestor @> CAST(@orgao AS jsonb))
)
SELECT p.id::text AS id, p.score, t.total
FROM (SELECT count(*) AS total FROM ranked) t
LEFT JOIN LATERAL (SELECT id, score FROM ranked ORDER BY score DESC, id LIMIT @limit OFFSET @offset) p ON true`

// trigramWeight scales the trigram similarity (0..1) against ts_rank.
const trigramWeight = 0.1

// KeywordSearch implements catalog.SearchStore.
func (s *Store) KeywordSearch(ctx context.Context, q catalog.KeywordQuery) ([]catalog.ScoredID, int, error) {
	if len(q.Terms) == 0 {
		return nil, 0, nil
	}
	orgao := []string{}
	if q.Filter.OrgaoGestor != "" {
		orgao = append(orgao, q.Filter.OrgaoGestor)
	}
	orgaoJSON, err := json.Marshal(orgao)
	if err != nil {
		return nil, 0, fmt.Errorf("encode orgao_gestor filter: %w", err)
	}
	var rows []struct {
		ID    *string
		Score float64
		Total int
	}
	err = s.db.WithContext(ctx).Raw(keywordSearch, map[string]any{
		"tsquery": tsquery(q.Terms), "text": q.Text, "version": q.Version, "trgm_weight": trigramWeight,
		"agents": q.Filter.IncludeAgentOnly, "tema": q.Filter.TemaGeral, "orgao": string(orgaoJSON),
		"limit": q.Limit, "offset": q.Offset,
	}).Scan(&rows).Error
	if err != nil {
		return nil, 0, mapError(fmt.Errorf("keyword search: %w", err))
	}
	// One row always comes back, carrying the total; its id is NULL when
	// the page is empty.
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

// tsquery joins words (letters and digits only, so no tsquery operator can
// slip in) with OR, the last one as a prefix: ranking rewards documents
// that match more of them.
func tsquery(terms []string) string {
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
