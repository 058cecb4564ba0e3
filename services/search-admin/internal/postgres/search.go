package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

var _ catalog.SearchStore = (*Store)(nil)

// keywordSearch ranks the published Servicos of one version by ts_rank of
// their search documents (GIN index) with the default weights, so a hit in
// an A field counts ten times one in a D field. The filters read the
// Servico's status, agent-only flag, tema and orgaos copied onto each
// document (migration 00006), so the matches are filtered as they are read.
//
// @tsquery is built by tsquery from quoted lexemes, never from search text.
// The cast is a scalar subquery, run once per search: pgx prepares
// statements and Postgres soon switches them to a generic plan, where an
// expression of a parameter written inline runs again for every candidate.
//
// No enable_* switch may be added: a disabled node adds 1e10 to the plan's
// cost, far above jit_above_cost, and the JIT compile then takes hundreds
// of milliseconds (TestKeywordSearchPlanIsNotJITCompiled).
const keywordSearch = `
WITH ranked AS (
    SELECT d.servico_id AS id, ts_rank(d.document, (SELECT CAST(@tsquery AS tsquery))) AS score
    FROM search_documents d
    WHERE d.schema_version = @version AND d.document @@ (SELECT CAST(@tsquery AS tsquery))
      AND d.status = 1
      AND (@agents OR NOT d.agent_only)
      AND (@tema = '' OR d.tema_geral = @tema)
      AND (@orgao = '[]' OR d.orgao_gestor @> CAST(@orgao AS jsonb))
)
SELECT p.id::text AS id, p.score, t.total
FROM (SELECT count(*) AS total FROM ranked) t
LEFT JOIN LATERAL (SELECT id, score FROM ranked ORDER BY score DESC, id LIMIT @limit OFFSET @offset) p ON true`

// rankCandidates ranks, like keywordSearch, only the documents of the
// candidate Servicos @ids and returns the page. Each candidate's document
// is looked up by primary key (LATERAL, OFFSET 0 keeps it a lookup per id):
// the GIN index would read every match, which is what candidates avoid.
// Every filter is applied again: a candidate may have changed since the
// replica's index read it.
const rankCandidates = `
SELECT d.id::text AS id, ts_rank(d.document, (SELECT CAST(@tsquery AS tsquery))) AS score
FROM unnest(CAST(@ids AS uuid[])) AS c(id)
CROSS JOIN LATERAL (
    SELECT x.servico_id AS id, x.document, x.status, x.agent_only, x.tema_geral, x.orgao_gestor
    FROM search_documents x
    WHERE x.servico_id = c.id AND x.schema_version = @version
    OFFSET 0
) d
WHERE d.document @@ (SELECT CAST(@tsquery AS tsquery))
  AND d.status = 1
  AND (@agents OR NOT d.agent_only)
  AND (@tema = '' OR d.tema_geral = @tema)
  AND (@orgao = '[]' OR d.orgao_gestor @> CAST(@orgao AS jsonb))
ORDER BY score DESC, d.id
LIMIT @limit OFFSET @offset`

// lexemes folds each text of a JSON array into the lexemes search documents
// store (search_lexemes, migration 00007), as a JSON array per text, and
// tells whether the folded text is a word of search_words.
const lexemes = `
SELECT t.position, array_to_json(search_lexemes(t.v->>'text', (t.v->>'stem_accents')::boolean))::text AS lexemes,
    EXISTS (SELECT 1 FROM search_words w WHERE w.word = search_unaccent(lower(t.v->>'text'))) AS known
FROM jsonb_array_elements(CAST(@texts AS jsonb)) WITH ORDINALITY AS t(v, position)
ORDER BY t.position`

// corrections finds, for each query word whose term no search document of
// the version matches, the known words most trigram-similar to it, nearest
// first from the GiST index; it keeps those within correctionMargin of the
// nearest, so a clear correction comes alone and does not widen the search.
// The unknown words are found first (MATERIALIZED), so only they are
// looked up; each correction comes with its lexemes.
const corrections = `
WITH unknown AS MATERIALIZED (
    SELECT q.position, q.w->>'word' AS word
    FROM jsonb_array_elements(CAST(@words AS jsonb)) WITH ORDINALITY AS q(w, position)
    WHERE NOT EXISTS (SELECT 1 FROM search_documents d WHERE d.schema_version = @version AND d.document @@ CAST(q.w->>'query' AS tsquery))
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
SELECT position, word, array_to_json(search_lexemes(word, @stem_accents))::text AS lexemes FROM candidates
WHERE similarity >= @min_similarity AND similarity >= best - @margin
ORDER BY position, similarity DESC, word`

// Typo correction: up to correctionsPerWord known words whose trigram
// similarity reaches correctionMinSimilarity, and is within correctionMargin
// of the best, replace an unknown one.
const (
	correctionMinSimilarity = 0.3
	correctionMargin        = 0.05
	correctionsPerWord      = 3
)

// lexemeRow is one row of lexemes or corrections.
type lexemeRow struct {
	Position int
	Word     string
	Lexemes  string
	Known    bool
}

// lexemeText is one element of the @texts parameter of lexemes.
type lexemeText struct {
	Text        string `json:"text"`
	StemAccents bool   `json:"stem_accents"`
}

// Lexemes implements catalog.SearchStore.
func (s *Store) Lexemes(ctx context.Context, q catalog.LexemeQuery) ([]catalog.Lexemes, error) {
	texts := make([]lexemeText, len(q.Texts))
	for i, t := range q.Texts {
		texts[i] = lexemeText(t)
	}
	raw, err := json.Marshal(texts)
	if err != nil {
		return nil, fmt.Errorf("encode texts: %w", err)
	}
	var rows []lexemeRow
	if err := s.db.WithContext(ctx).Raw(lexemes, map[string]any{"texts": string(raw)}).Scan(&rows).Error; err != nil {
		return nil, mapError(fmt.Errorf("query lexemes: %w", err))
	}
	out := make([]catalog.Lexemes, len(q.Texts))
	for _, r := range rows {
		if r.Position < 1 || r.Position > len(out) {
			continue
		}
		l := &out[r.Position-1]
		if l.Lexemes, err = decodeLexemes(r.Lexemes); err != nil {
			return nil, err
		}
		l.Known = r.Known
	}
	return out, nil
}

// Corrections implements catalog.SearchStore.
func (s *Store) Corrections(ctx context.Context, q catalog.CorrectionQuery) ([]catalog.Correction, error) {
	args, err := correctionArgs(q)
	if err != nil || args == nil {
		return nil, err
	}
	var rows []lexemeRow
	if err := s.runCorrections(ctx, "", args, &rows); err != nil {
		return nil, mapError(fmt.Errorf("typo corrections: %w", err))
	}
	out := make([]catalog.Correction, 0, len(rows))
	for _, r := range rows {
		lexemes, err := decodeLexemes(r.Lexemes)
		if err != nil {
			return nil, err
		}
		out = append(out, catalog.Correction{Index: r.Position - 1, Word: r.Word, Lexemes: lexemes})
	}
	return out, nil
}

// runCorrections runs corrections after prefix (empty, or an EXPLAIN for
// tests) with args, scanning into dest.
func (s *Store) runCorrections(ctx context.Context, prefix string, args map[string]any, dest any) error {
	return s.db.WithContext(ctx).Raw(prefix+corrections, args).Scan(dest).Error
}

// correctionWord is one element of the @words parameter of corrections.
type correctionWord struct {
	Word  string `json:"word"`
	Query string `json:"query"`
}

// correctionArgs binds q to the named parameters of corrections; nil when
// no word has a term to look for.
func correctionArgs(q catalog.CorrectionQuery) (map[string]any, error) {
	words := make([]correctionWord, len(q.Words))
	looked := false
	for i, w := range q.Words {
		words[i] = correctionWord{Word: w.Word, Query: tsquery([]catalog.Match{w.Match}, true)}
		looked = looked || words[i].Query != ""
	}
	if !looked {
		return nil, nil
	}
	raw, err := json.Marshal(words)
	if err != nil {
		return nil, fmt.Errorf("encode correction words: %w", err)
	}
	return map[string]any{
		"words": string(raw), "version": q.Version, "stem_accents": q.StemAccents,
		"min_similarity": correctionMinSimilarity, "margin": correctionMargin, "per_word": correctionsPerWord,
	}, nil
}

// decodeLexemes reads a JSON array of lexemes (NULL: none).
func decodeLexemes(raw string) ([]string, error) {
	if raw == "" {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("decode lexemes %q: %w", raw, err)
	}
	return out, nil
}

// KeywordSearch implements catalog.SearchStore, on pgx directly like
// RankKeywordCandidates.
func (s *Store) KeywordSearch(ctx context.Context, q catalog.KeywordQuery) ([]catalog.ScoredID, int, error) {
	args, err := keywordArgs(q)
	if err != nil || args == nil {
		return nil, 0, err
	}
	out := make([]catalog.ScoredID, 0, q.Limit)
	total := 0
	err = s.runKeywordSearch(ctx, "", args, func(rows pgx.Rows) error {
		for rows.Next() {
			var id *string
			var score *float64
			if err := rows.Scan(&id, &score, &total); err != nil {
				return err
			}
			if id != nil {
				out = append(out, catalog.ScoredID{ID: *id, Score: *score})
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, mapError(fmt.Errorf("keyword search: %w", err))
	}
	return out, total, nil
}

// runKeywordSearch runs keywordSearch, after prefix (empty, or an EXPLAIN
// for tests), with args on a pgx connection, handing the rows to scan.
// Planner settings, if ever needed, belong here so that the plan tests see
// them too.
func (s *Store) runKeywordSearch(ctx context.Context, prefix string, args map[string]any, scan func(pgx.Rows) error) error {
	return runRows(ctx, s.db, prefix+keywordSearch, args, scan)
}

// keywordArgs binds q to the named parameters of keywordSearch; nil when
// the query has no lexeme to match.
func keywordArgs(q catalog.KeywordQuery) (map[string]any, error) {
	query := tsquery(q.Terms, q.Every)
	if query == "" {
		return nil, nil
	}
	orgao := []string{}
	if q.Filter.OrgaoGestor != "" {
		orgao = append(orgao, q.Filter.OrgaoGestor)
	}
	orgaoJSON, err := json.Marshal(orgao)
	if err != nil {
		return nil, fmt.Errorf("encode orgao_gestor filter: %w", err)
	}
	return map[string]any{
		"tsquery": query, "version": q.Version,
		"agents": q.Filter.IncludeAgentOnly, "tema": q.Filter.TemaGeral, "orgao": string(orgaoJSON),
		"limit": q.Limit, "offset": q.Offset,
	}, nil
}

// RankKeywordCandidates implements catalog.SearchStore, on pgx directly:
// GORM's reflection over the ranked rows and the page's was 12% of
// search-admin's CPU in a hybrid search under load.
func (s *Store) RankKeywordCandidates(ctx context.Context, q catalog.KeywordQuery, ids []string) ([]catalog.ScoredID, error) {
	args, err := rankCandidateArgs(q, ids)
	if err != nil || args == nil {
		return nil, err
	}
	out := make([]catalog.ScoredID, 0, len(ids))
	err = s.runRankCandidates(ctx, "", args, func(rows pgx.Rows) error {
		for rows.Next() {
			var h catalog.ScoredID
			if err := rows.Scan(&h.ID, &h.Score); err != nil {
				return err
			}
			out = append(out, h)
		}
		return nil
	})
	if err != nil {
		return nil, mapError(fmt.Errorf("rank keyword candidates: %w", err))
	}
	return out, nil
}

// rankCandidateArgs binds q and the candidate ids to the parameters of
// rankCandidates; nil when there is nothing to rank.
func rankCandidateArgs(q catalog.KeywordQuery, ids []string) (map[string]any, error) {
	args, err := keywordArgs(q)
	if err != nil || args == nil || len(ids) == 0 {
		return nil, err
	}
	for _, id := range ids {
		if _, err := uuid.Parse(id); err != nil {
			return nil, fmt.Errorf("candidate %q is no servico id", id)
		}
	}
	args["ids"] = "{" + strings.Join(ids, ",") + "}" // an array literal, as the statement casts it
	return args, nil
}

// runRankCandidates runs rankCandidates after prefix (empty, or an EXPLAIN
// for tests) with args on a pgx connection, handing the rows to scan.
func (s *Store) runRankCandidates(ctx context.Context, prefix string, args map[string]any, scan func(pgx.Rows) error) error {
	return runRows(ctx, s.db, prefix+rankCandidates, args, scan)
}

// runRows runs query with the named args on a pooled pgx connection and
// hands its rows to scan.
func runRows(ctx context.Context, db *gorm.DB, query string, args map[string]any, scan func(pgx.Rows) error) error {
	return withConn(ctx, db, func(conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, query, pgx.NamedArgs(args))
		if err != nil {
			return err
		}
		defer rows.Close()
		if err := scan(rows); err != nil {
			return err
		}
		return rows.Err()
	})
}

// servicosByID loads Servicos by id with the search settings of the same
// snapshot, as scalar subqueries run once. The columns are those of
// servicoRow, which pgx fills by name.
const servicosByID = `
SELECT s.id::text AS id, s.nome_servico, s.orgao_gestor, s.publico_especifico, s.resumo, s.tema_geral, s.autor,
    s.custo_servico, s.descricao_completa, s.resultado_solicitacao, s.tempo_atendimento, s.agents,
    s.awaiting_approval, s.canais_digitais, s.canais_presenciais, s.documentos_necessarios,
    s.legislacao_relacionada, s.extra_fields, s.fixar_destaque, s.instrucoes_solicitante, s.is_free,
    s.servico_nao_cobre, s.published_at, s.status, s.created_at, s.last_update,
    (SELECT current_version FROM search_settings) AS settings_version,
    (SELECT revision FROM search_synonyms_revision) AS settings_synonyms_revision
FROM servicos s WHERE s.id = ANY($1::uuid[])`

// servicoWithSettings is one row of servicosByID.
type servicoWithSettings struct {
	servicoRow
	SettingsVersion          string
	SettingsSynonymsRevision int64
}

// ServicosByID implements catalog.SearchStore, on pgx directly, like
// RankKeywordCandidates. When no row comes back the settings are read on
// their own.
func (s *Store) ServicosByID(ctx context.Context, ids []string) ([]catalog.Servico, catalog.SearchSettings, error) {
	if len(ids) == 0 {
		settings, err := s.SearchSettings(ctx)
		return nil, settings, err
	}
	var rows []servicoWithSettings
	err := withConn(ctx, s.db, func(conn *pgx.Conn) error {
		found, err := conn.Query(ctx, servicosByID, ids)
		if err != nil {
			return err
		}
		rows, err = pgx.CollectRows(found, pgx.RowToStructByName[servicoWithSettings])
		return err
	})
	if err != nil {
		return nil, catalog.SearchSettings{}, mapError(fmt.Errorf("load servicos: %w", err))
	}
	if len(rows) == 0 {
		settings, err := s.SearchSettings(ctx)
		return nil, settings, err
	}
	out := make([]catalog.Servico, len(rows))
	for i, r := range rows {
		out[i] = *r.servico()
	}
	return out, catalog.SearchSettings{Version: rows[0].SettingsVersion, SynonymsRevision: rows[0].SettingsSynonymsRevision}, nil
}
