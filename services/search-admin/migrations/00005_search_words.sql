-- +goose Up

-- The words of every Servico's folded name and summary, for correcting
-- typos: a query word that no search document knows is replaced by the
-- known words trigram-similar to it (pg_trgm's "did you mean" pattern), so
-- keyword search stays on the full-text index instead of rechecking word
-- similarity over hundreds of long texts. The table only grows: a word left
-- by a renamed or deleted Servico at worst adds an alternative that matches
-- no document.
CREATE TABLE search_words (
    word text PRIMARY KEY
);
-- GiST, not GIN: the lookup asks for the nearest words (ORDER BY <-> LIMIT),
-- which GiST answers from the index whatever the table's size; with GIN the
-- planner scans a small table and computes similarity for every word.
CREATE INDEX search_words_trgm_idx ON search_words USING gist (word gist_trgm_ops);

-- Words are inserted in order so that two writers adding the same new
-- words wait for each other instead of deadlocking.
-- +goose StatementBegin
CREATE FUNCTION servicos_search_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO search_words (word)
    SELECT DISTINCT w FROM regexp_split_to_table(NEW.search_text, '[^[:alnum:]]+') w
    WHERE length(w) BETWEEN 3 AND 40 AND w ~ '[[:alpha:]]'
    ORDER BY w
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER servicos_search_words AFTER INSERT OR UPDATE OF nome_servico, resumo ON servicos
    FOR EACH ROW EXECUTE FUNCTION servicos_search_words();

INSERT INTO search_words (word)
SELECT DISTINCT w FROM servicos, regexp_split_to_table(search_text, '[^[:alnum:]]+') w
WHERE length(w) BETWEEN 3 AND 40 AND w ~ '[[:alpha:]]'
ON CONFLICT DO NOTHING;

-- Keyword search no longer scores the folded name.
ALTER TABLE servicos DROP COLUMN search_name;

-- +goose Down
ALTER TABLE servicos ADD COLUMN search_name text GENERATED ALWAYS AS (search_unaccent(lower(nome_servico))) STORED;
DROP TRIGGER servicos_search_words ON servicos;
DROP FUNCTION servicos_search_words();
DROP TABLE search_words;
