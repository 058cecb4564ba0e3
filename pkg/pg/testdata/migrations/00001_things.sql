-- +goose Up
CREATE TABLE owners (
    id   bigserial PRIMARY KEY,
    nome text NOT NULL
);
CREATE UNIQUE INDEX owners_nome_lower_key ON owners (lower(nome));

CREATE TABLE things (
    id       bigserial PRIMARY KEY,
    owner_id bigint REFERENCES owners (id) ON DELETE RESTRICT,
    qty      integer NOT NULL CONSTRAINT things_qty_check CHECK (qty >= 0)
);

-- +goose Down
DROP TABLE things;
DROP TABLE owners;
