-- +goose Up
-- A second migration set: version 1 again, recorded in its own table.
CREATE TABLE labels (
    id   bigserial PRIMARY KEY,
    text text NOT NULL
);

-- +goose Down
DROP TABLE labels;
