-- +goose Up
-- The program's own table in the tests: what a guarded handler creates.
CREATE TABLE things (
    id   bigserial PRIMARY KEY,
    name text NOT NULL
);

-- +goose Down
DROP TABLE things;
