-- +goose Up
-- Unique names (escolaridades.nivel, categorias.nome) are compared and stored
-- in one form: zero-width characters (U+200B, U+200C, U+200D, U+2060, U+FEFF)
-- removed, Unicode NFC, trimmed of what Go calls white space
-- (jobs.UniqueName). This puts the rows stored before that rule in that form.
--
-- Two stored rows may turn out to be one name ("Médio" and "Me\u0301dio"). Of
-- each such group only one row is rewritten: the one already in normal form
-- if there is one (it keeps its name), otherwise the lowest id; the others keep
-- their names, so no row is merged, renamed or lost and the unique index never
-- fails here. A new write of the same name is still refused, since the
-- normalized row holds it. A row whose name would become blank is kept as is.
UPDATE escolaridades e SET nivel = r.norm
FROM (
    SELECT id, norm,
           nivel = norm AS normal,
           row_number() OVER (PARTITION BY lower(norm) ORDER BY nivel = norm DESC, id) AS pick
    FROM (SELECT id, nivel, btrim(normalize(regexp_replace(nivel, U&'[\200B-\200D\2060\FEFF]', '', 'g'), NFC),
                              U&' \0009\000A\000B\000C\000D\0085\00A0\1680\2000\2001\2002\2003\2004\2005\2006\2007\2008\2009\200A\2028\2029\202F\205F\3000') AS norm
          FROM escolaridades) n
) r
WHERE e.id = r.id AND r.pick = 1 AND NOT r.normal AND r.norm <> '';

UPDATE categorias c SET nome = r.norm
FROM (
    SELECT id, norm,
           nome = norm AS normal,
           row_number() OVER (PARTITION BY lower(norm) ORDER BY nome = norm DESC, id) AS pick
    FROM (SELECT id, nome, btrim(normalize(regexp_replace(nome, U&'[\200B-\200D\2060\FEFF]', '', 'g'), NFC),
                              U&' \0009\000A\000B\000C\000D\0085\00A0\1680\2000\2001\2002\2003\2004\2005\2006\2007\2008\2009\200A\2028\2029\202F\205F\3000') AS norm
          FROM categorias) n
) r
WHERE c.id = r.id AND r.pick = 1 AND NOT r.normal AND r.norm <> '';

-- +goose Down
-- Nothing to undo: the original spellings are gone, and the normalized names
-- are valid names under the previous rules too.
