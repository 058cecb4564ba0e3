-- +goose Up

-- The tsvector of one weight of a search document. Folding before stemming
-- (v1, v2) makes the Portuguese stemmer miss the accented suffixes, so the
-- singular and plural, or the noun and verb, of an accented word stem apart
-- ("vacinação" vacinaca, "vacinações" vacinaco). With stem_accents (v3) the
-- document holds both: the lexemes of the words as written, stemmed and then
-- folded to letters and digits (vacin, vacin), and those of the folded words,
-- stemmed (vacinaca, vacinaco), each at the positions of its words. Query
-- words are looked up both ways, and an incomplete last word matches the
-- folded stems as a prefix.
-- +goose StatementBegin
CREATE FUNCTION search_document(words text, stem_accents boolean) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$
    SELECT CASE WHEN NOT stem_accents THEN to_tsvector('portuguese', search_unaccent(words)) ELSE (
        SELECT COALESCE(string_agg(
            '''' || replace(replace(g.lexeme, '\', '\\'), '''', '''''') || ''':' || g.positions, ' '), '')::tsvector
        FROM (
            SELECT l.lexeme, string_agg(l.position::text, ',' ORDER BY l.position) AS positions
            FROM (
                SELECT search_fold_lexeme(v.lexeme) AS lexeme, p.position
                FROM unnest(to_tsvector('portuguese', words)) v, unnest(v.positions) p(position)
                UNION
                SELECT v.lexeme, p.position
                FROM unnest(to_tsvector('portuguese', search_unaccent(words))) v, unnest(v.positions) p(position)
            ) l
            WHERE l.lexeme <> ''
            GROUP BY l.lexeme
        ) g
    ) END
$$;
-- +goose StatementEnd

-- v3 is defined in code; an empty catalog starts on it, a catalog with
-- Servicos moves to it by re-indexing (POST /api/v1/admin/migration/start).
UPDATE search_settings SET current_version = 'v3', revision = revision + 1
WHERE current_version = 'v2' AND target_version IS NULL AND previous_version IS NULL
  AND NOT EXISTS (SELECT 1 FROM servicos);

-- +goose Down
UPDATE search_settings SET current_version = 'v2', revision = revision + 1
WHERE current_version = 'v3' AND target_version IS NULL AND previous_version IS NULL
  AND NOT EXISTS (SELECT 1 FROM servicos);
DROP FUNCTION search_document(text, boolean);
