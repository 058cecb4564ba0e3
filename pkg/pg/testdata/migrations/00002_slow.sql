-- +goose Up
-- A migration that takes a moment, so concurrent runners really overlap.
SELECT pg_sleep(0.3);
ALTER TABLE things ADD COLUMN note text;

-- +goose Down
ALTER TABLE things DROP COLUMN note;
