-- +goose Up

-- Search text never reaches to_tsquery: keyword search asks Postgres for the
-- lexemes of the query's words (search_lexemes) and builds the tsquery from
-- them, quoted, in the service. unaccent folds some letters into tsquery
-- operators (U+02D0 "ː" becomes ":", U+02BC "ʼ" becomes "'"), so a folded
-- lexeme keeps letters and digits only.
-- +goose StatementBegin
CREATE FUNCTION search_fold_lexeme(text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$ SELECT regexp_replace(search_unaccent($1), '[^[:alnum:]]+', '', 'g') $$;
-- +goose StatementEnd

-- The lexemes of words as the search documents of a version store them, in
-- the order they come: stem_accents stems the words as written and then
-- folds the stems; otherwise the words are folded and then stemmed.
-- +goose StatementBegin
CREATE FUNCTION search_lexemes(words text, stem_accents boolean) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$
    SELECT COALESCE(array_agg(l.lexeme ORDER BY l.first, l.lexeme), '{}')
    FROM (
        SELECT search_fold_lexeme(v.lexeme) AS lexeme, min(v.positions[1]) AS first
        FROM unnest(to_tsvector('portuguese', CASE WHEN stem_accents THEN words ELSE search_unaccent(words) END)) v
        GROUP BY 1
    ) l
    WHERE l.lexeme <> ''
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION search_lexemes(text, boolean);
DROP FUNCTION search_fold_lexeme(text);
