-- +goose Up
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- unaccent() is only STABLE (it reads a dictionary that could change), so it
-- cannot feed an index or a generated column. Pinning the dictionary makes it
-- safe to declare IMMUTABLE, the usual pattern for accent-insensitive search.
-- +goose StatementBegin
CREATE FUNCTION search_unaccent(text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;
-- +goose StatementEnd

CREATE TABLE servicos (
    id                     uuid PRIMARY KEY,
    nome_servico           text NOT NULL CONSTRAINT servicos_nome_servico_length CHECK (char_length(nome_servico) <= 255),
    orgao_gestor           jsonb NOT NULL CONSTRAINT servicos_orgao_gestor_items CHECK (jsonb_typeof(orgao_gestor) = 'array' AND jsonb_array_length(orgao_gestor) >= 1),
    publico_especifico     jsonb NOT NULL CONSTRAINT servicos_publico_especifico_items CHECK (jsonb_typeof(publico_especifico) = 'array' AND jsonb_array_length(publico_especifico) >= 1),
    resumo                 text NOT NULL CONSTRAINT servicos_resumo_length CHECK (char_length(resumo) <= 350),
    tema_geral             text NOT NULL,
    autor                  text NOT NULL,
    custo_servico          text NOT NULL DEFAULT '',
    descricao_completa     text NOT NULL DEFAULT '',
    resultado_solicitacao  text NOT NULL DEFAULT '',
    tempo_atendimento      text NOT NULL DEFAULT '',
    agents                 jsonb,
    awaiting_approval      boolean,
    canais_digitais        jsonb,
    canais_presenciais     jsonb,
    documentos_necessarios jsonb,
    legislacao_relacionada jsonb,
    extra_fields           jsonb,
    fixar_destaque         boolean,
    instrucoes_solicitante text,
    is_free                boolean,
    servico_nao_cobre      text,
    published_at           bigint,
    status                 smallint NOT NULL DEFAULT 0 CONSTRAINT servicos_status_range CHECK (status BETWEEN 0 AND 1),
    created_at             bigint NOT NULL,
    last_update            bigint NOT NULL
);

CREATE INDEX servicos_created_at_idx ON servicos (created_at DESC, id DESC);
CREATE INDEX servicos_status_idx ON servicos (status);
CREATE INDEX servicos_tema_geral_idx ON servicos (tema_geral);
CREATE INDEX servicos_orgao_gestor_idx ON servicos USING gin (orgao_gestor jsonb_path_ops);
CREATE INDEX servicos_text_idx ON servicos USING gin (search_unaccent(lower(nome_servico || ' ' || resumo)) gin_trgm_ops);

-- The search-schema version that search reads, one row. A migration (issue 6)
-- switches it atomically.
CREATE TABLE search_settings (
    singleton       boolean PRIMARY KEY DEFAULT true CONSTRAINT search_settings_singleton CHECK (singleton),
    current_version text NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
INSERT INTO search_settings (current_version) VALUES ('v2');

-- One search document per Servico and schema version. A document whose
-- embedding could not be computed is pending: the re-embed worker claims it
-- when next_attempt_at has passed.
CREATE TABLE search_documents (
    servico_id        uuid NOT NULL REFERENCES servicos (id) ON DELETE CASCADE,
    schema_version    text NOT NULL,
    search_content    text NOT NULL,
    document          tsvector NOT NULL,
    embedding         float4[],
    embedding_model   text NOT NULL DEFAULT '',
    embedding_pending boolean NOT NULL DEFAULT false,
    embed_attempts    integer NOT NULL DEFAULT 0,
    next_attempt_at   timestamptz,
    last_error        text,
    updated_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (servico_id, schema_version),
    CONSTRAINT search_documents_embedding_state CHECK (embedding_pending OR embedding IS NOT NULL)
);

CREATE INDEX search_documents_document_idx ON search_documents USING gin (document);
CREATE INDEX search_documents_pending_idx ON search_documents (next_attempt_at) WHERE embedding_pending;

-- +goose Down
DROP TABLE search_documents;
DROP TABLE search_settings;
DROP TABLE servicos;
DROP FUNCTION search_unaccent(text);
