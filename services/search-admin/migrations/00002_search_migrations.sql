-- +goose Up

-- Every write to a Servico takes a new change_seq from this sequence, and
-- every committed write notifies channel search_catalog with the Servico id.
-- Replicas keep the current version's vectors in memory: a notification
-- reloads one entry, and count(*) + sum(change_seq) over servicos is a cheap
-- fingerprint that catches a lost notification (see README, "Vector cache").
CREATE SEQUENCE servicos_change_seq;
ALTER TABLE servicos ADD COLUMN change_seq bigint NOT NULL DEFAULT nextval('servicos_change_seq');

-- +goose StatementBegin
CREATE FUNCTION servicos_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.change_seq := nextval('servicos_change_seq');
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION servicos_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('search_catalog', COALESCE(NEW.id, OLD.id)::text);
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER servicos_touch BEFORE UPDATE ON servicos FOR EACH ROW EXECUTE FUNCTION servicos_touch();
CREATE TRIGGER servicos_notify AFTER INSERT OR UPDATE OR DELETE ON servicos FOR EACH ROW EXECUTE FUNCTION servicos_notify();

-- current_version is what search reads; target_version is set while a
-- migration runs and previous_version after a switch, and writes index every
-- one of them. Writers hold this row FOR SHARE, so starting, switching and
-- rolling back (which UPDATE it) wait for in-flight writes and every later
-- write sees the new versions. revision grows with every change of versions.
ALTER TABLE search_settings
    ADD COLUMN target_version   text,
    ADD COLUMN previous_version text,
    ADD COLUMN revision         bigint NOT NULL DEFAULT 1;

-- One row per migration. The running one is also the lease: its runner
-- extends lease_expires_at with a heartbeat, and another replica takes it
-- over, resuming after cursor_id, once the lease has expired.
CREATE TABLE search_migrations (
    id               uuid PRIMARY KEY,
    from_version     text NOT NULL,
    target_version   text NOT NULL,
    state            text NOT NULL CONSTRAINT search_migrations_state CHECK (state IN ('running', 'completed', 'cancelled', 'rolled_back')),
    started_by       text NOT NULL,
    processed        bigint NOT NULL DEFAULT 0,
    total            bigint NOT NULL DEFAULT 0,
    cursor_id        uuid,
    lease_holder     text,
    lease_expires_at timestamptz,
    takeovers        integer NOT NULL DEFAULT 0,
    started_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz,
    rolled_back_at   timestamptz
);

CREATE UNIQUE INDEX search_migrations_one_running ON search_migrations ((true)) WHERE state = 'running';
CREATE INDEX search_migrations_started_idx ON search_migrations (started_at DESC, id DESC);

-- +goose Down
DROP TABLE search_migrations;
ALTER TABLE search_settings DROP COLUMN target_version, DROP COLUMN previous_version, DROP COLUMN revision;
DROP TRIGGER servicos_notify ON servicos;
DROP TRIGGER servicos_touch ON servicos;
DROP FUNCTION servicos_notify();
DROP FUNCTION servicos_touch();
ALTER TABLE servicos DROP COLUMN change_seq;
DROP SEQUENCE servicos_change_seq;
