-- +goose Up

-- What search filters on, copied from the Servico onto each of its search
-- documents, so that keyword search filters the full-text matches as it
-- reads them instead of looking every match up in servicos (~60% of a
-- search that matches a thousand documents). One trigger function holds
-- the copy: a document takes the Servico's values whenever its document or
-- status is written. A change of those values on the Servico touches the
-- status of its documents in the same transaction, which runs that copy.
ALTER TABLE search_documents
    ADD COLUMN status smallint NOT NULL DEFAULT 0,
    ADD COLUMN agent_only boolean NOT NULL DEFAULT false,
    ADD COLUMN tema_geral text NOT NULL DEFAULT '',
    ADD COLUMN orgao_gestor jsonb NOT NULL DEFAULT '[]';

-- +goose StatementBegin
CREATE FUNCTION search_documents_copy_filters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT s.status, COALESCE(s.agents -> 'exclusive_for_agents' = 'true'::jsonb, false), s.tema_geral, s.orgao_gestor
    INTO NEW.status, NEW.agent_only, NEW.tema_geral, NEW.orgao_gestor
    FROM servicos s WHERE s.id = NEW.servico_id;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER search_documents_copy_filters BEFORE INSERT OR UPDATE OF document, status ON search_documents
    FOR EACH ROW EXECUTE FUNCTION search_documents_copy_filters();

-- +goose StatementBegin
CREATE FUNCTION servicos_copy_filters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- search_documents_copy_filters fills in every copied value.
    UPDATE search_documents SET status = NEW.status WHERE servico_id = NEW.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER servicos_copy_filters AFTER UPDATE ON servicos
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.agents IS DISTINCT FROM NEW.agents
          OR OLD.tema_geral IS DISTINCT FROM NEW.tema_geral OR OLD.orgao_gestor IS DISTINCT FROM NEW.orgao_gestor)
    EXECUTE FUNCTION servicos_copy_filters();

-- Existing documents take their copies the same way.
UPDATE search_documents SET status = status;

-- +goose Down
DROP TRIGGER servicos_copy_filters ON servicos;
DROP FUNCTION servicos_copy_filters();
DROP TRIGGER search_documents_copy_filters ON search_documents;
DROP FUNCTION search_documents_copy_filters();
ALTER TABLE search_documents DROP COLUMN orgao_gestor, DROP COLUMN tema_geral, DROP COLUMN agent_only, DROP COLUMN status;
