-- +goose Up

-- progressed_at is when a re-indexing run last wrote a batch (or started).
-- Claims and heartbeats move updated_at and the lease, never this: a run
-- whose runner keeps its lease but writes nothing shows as stuck
-- (search_reindex_last_progress_timestamp_seconds, the ReindexStuck alert).
ALTER TABLE search_migrations ADD COLUMN progressed_at timestamptz;
UPDATE search_migrations SET progressed_at = updated_at;
ALTER TABLE search_migrations ALTER COLUMN progressed_at SET DEFAULT now(), ALTER COLUMN progressed_at SET NOT NULL;

-- +goose Down
ALTER TABLE search_migrations DROP COLUMN progressed_at;
