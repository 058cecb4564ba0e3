-- +goose Up

-- The folded name and name + summary, computed once per write instead of
-- once per candidate row per search: search_unaccent is a LANGUAGE sql
-- wrapper that Postgres cannot inline, so every call pays the SQL-function
-- executor. Keyword search filters on search_text (trigram index) and scores
-- search_name; the admin list filters on search_text with LIKE.
ALTER TABLE servicos
    ADD COLUMN search_name text GENERATED ALWAYS AS (search_unaccent(lower(nome_servico))) STORED,
    ADD COLUMN search_text text GENERATED ALWAYS AS (search_unaccent(lower(nome_servico || ' ' || resumo))) STORED;

-- No statistics for search_text: estimating a word-similarity (<%) filter
-- runs word_similarity over every histogram entry, ~2 ms of planning per
-- search at the default target; without them the planner uses the default
-- selectivity (1%), which is close to what trigram searches match.
ALTER TABLE servicos ALTER COLUMN search_text SET STATISTICS 0;

CREATE INDEX servicos_search_text_idx ON servicos USING gin (search_text gin_trgm_ops);
DROP INDEX servicos_text_idx;

-- +goose Down
CREATE INDEX servicos_text_idx ON servicos USING gin (search_unaccent(lower(nome_servico || ' ' || resumo)) gin_trgm_ops);
ALTER TABLE servicos DROP COLUMN search_text, DROP COLUMN search_name;
