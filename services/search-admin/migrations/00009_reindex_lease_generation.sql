-- +goose Up

-- search_migrations holds the re-indexing runs (the table keeps the name it
-- was created with). Every claim of a run's lease, first or takeover, adds
-- one to lease_generation, and the runner's every write names the
-- generation it holds: a runner that stalled past its lease and wakes after
-- a takeover can no longer record progress, write documents or switch.
ALTER TABLE search_migrations ADD COLUMN lease_generation bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE search_migrations DROP COLUMN lease_generation;
