-- +goose Up
-- 00002 put the stored unique names (escolaridades.nivel, categorias.nome) in
-- the form jobs.UniqueName compares and stores them in. During the rolling
-- update that ran it, the previous release's pods kept writing names in
-- other forms ("Te\u0301cnico", "Superior\u200b"), and so may anyone with
-- psql: a reviewer found such rows after an upgrade. The database now puts
-- every name written in that form itself, whoever writes it, so the unique
-- index always compares one form; and this puts the rows written since
-- 00002 in it, by 00002's rule (no row is merged, renamed or lost).
-- +goose StatementBegin
CREATE FUNCTION unique_name(s text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT btrim(normalize(regexp_replace(s, U&'[\200B-\200D\2060\FEFF]', '', 'g'), NFC),
                 U&' \0009\000A\000B\000C\000D\0085\00A0\1680\2000\2001\2002\2003\2004\2005\2006\2007\2008\2009\200A\2028\2029\202F\205F\3000')
$$;
-- +goose StatementEnd

-- A name that would become blank is stored as written, as 00002 left it (the
-- service refuses blank names before they get here).
-- +goose StatementBegin
CREATE FUNCTION escolaridades_unique_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.nivel := COALESCE(NULLIF(unique_name(NEW.nivel), ''), NEW.nivel);
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER escolaridades_unique_name BEFORE INSERT OR UPDATE OF nivel ON escolaridades
FOR EACH ROW EXECUTE FUNCTION escolaridades_unique_name();

-- +goose StatementBegin
CREATE FUNCTION categorias_unique_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.nome := COALESCE(NULLIF(unique_name(NEW.nome), ''), NEW.nome);
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER categorias_unique_name BEFORE INSERT OR UPDATE OF nome ON categorias
FOR EACH ROW EXECUTE FUNCTION categorias_unique_name();

UPDATE escolaridades e SET nivel = r.norm
FROM (
    SELECT id, norm, nivel = norm AS normal,
           row_number() OVER (PARTITION BY lower(norm) ORDER BY nivel = norm DESC, id) AS pick
    FROM (SELECT id, nivel, unique_name(nivel) AS norm FROM escolaridades) n
) r
WHERE e.id = r.id AND r.pick = 1 AND NOT r.normal AND r.norm <> '';

UPDATE categorias c SET nome = r.norm
FROM (
    SELECT id, norm, nome = norm AS normal,
           row_number() OVER (PARTITION BY lower(norm) ORDER BY nome = norm DESC, id) AS pick
    FROM (SELECT id, nome, unique_name(nome) AS norm FROM categorias) n
) r
WHERE c.id = r.id AND r.pick = 1 AND NOT r.normal AND r.norm <> '';

-- +goose Down
DROP TRIGGER categorias_unique_name ON categorias;
DROP TRIGGER escolaridades_unique_name ON escolaridades;
DROP FUNCTION categorias_unique_name();
DROP FUNCTION escolaridades_unique_name();
DROP FUNCTION unique_name(text);
