-- +goose Up
-- One row per (client, Idempotency-Key): a claim while the first request
-- runs, then the response it got, until expires_at.
CREATE TABLE idempotency_keys (
    client_id   text        NOT NULL,
    key         text        NOT NULL,
    fingerprint bytea       NOT NULL,
    state       text        NOT NULL CONSTRAINT idempotency_keys_state_check CHECK (state IN ('in_progress', 'done')),
    status      integer,
    header      jsonb,
    body        bytea,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (client_id, key),
    CONSTRAINT idempotency_keys_done_check CHECK (state = 'in_progress' OR status IS NOT NULL)
);
CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
