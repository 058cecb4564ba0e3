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

-- unique_name_column(column) puts NEW's column in that form; a name that
-- would become blank is stored as written, as 00002 left it (the service
-- refuses blank names before they get here).
-- +goose StatementBegin
CREATE FUNCTION unique_name_column() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    written text := to_jsonb(NEW) ->> TG_ARGV[0];
BEGIN
    RETURN jsonb_populate_record(NEW, jsonb_build_object(TG_ARGV[0], COALESCE(NULLIF(unique_name(written), ''), written)));
END
$$;
-- +goose StatementEnd
CREATE TRIGGER escolaridades_unique_name BEFORE INSERT OR UPDATE OF nivel ON escolaridades
FOR EACH ROW EXECUTE FUNCTION unique_name_column('nivel');
CREATE TRIGGER categorias_unique_name BEFORE INSERT OR UPDATE OF nome ON categorias
FOR EACH ROW EXECUTE FUNCTION unique_name_column('nome');

-- 00002's rewrite, for each table.
-- +goose StatementBegin
DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES ('escolaridades', 'nivel'), ('categorias', 'nome')) v(tab, col) LOOP
        EXECUTE format($sql$
            UPDATE %1$I x SET %2$I = r.norm
            FROM (
                SELECT id, norm, %2$I = norm AS normal,
                       row_number() OVER (PARTITION BY lower(norm) ORDER BY %2$I = norm DESC, id) AS pick
                FROM (SELECT id, %2$I, unique_name(%2$I) AS norm FROM %1$I) n
            ) r
            WHERE x.id = r.id AND r.pick = 1 AND NOT r.normal AND r.norm <> ''$sql$, t.tab, t.col);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER categorias_unique_name ON categorias;
DROP TRIGGER escolaridades_unique_name ON escolaridades;
DROP FUNCTION unique_name_column();
DROP FUNCTION unique_name(text);
