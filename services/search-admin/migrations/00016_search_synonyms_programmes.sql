-- +goose Up

-- Popular names of programmes, places and laws that citizens type alone,
-- on top of migrations 00010 and 00015: a one-word query such as "creche"
-- or "procon" names the service by a word its charter seldom uses
-- ("educação infantil", "defesa do consumidor"). One-way rules from the
-- popular name to the charter's words; the multi-way sets of 00010 stay as
-- they are. The rows carry autor 'search-admin-programmes', which Down
-- deletes by; like any rule they can be listed, replaced or deleted
-- through /api/v1/admin/synonyms.
INSERT INTO search_synonyms (id, root, synonyms, autor, created_at, last_update)
SELECT CAST(lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
            || '7' || substr(md5(random()::text), 1, 3)
            || to_hex(8 + floor(random() * 4)::int) || substr(md5(random()::text), 1, 15) AS uuid),
       r.root, CAST(r.synonyms AS jsonb), 'search-admin-programmes', extract(epoch FROM now())::bigint, extract(epoch FROM now())::bigint
FROM (VALUES
    ('creche', '["educação infantil", "centro de educação infantil", "cmei"]'),
    ('pré escola', '["educação infantil"]'),
    ('entrar no bolsa família', '["cadastro único", "cadúnico", "bolsa família"]'),
    ('lai', '["acesso à informação", "lei de acesso à informação", "transparência"]'),
    ('procon', '["defesa do consumidor", "direitos do consumidor", "reclamação de consumo"]'),
    ('tarifa zero', '["gratuidade", "passe livre", "isenção de tarifa"]'),
    ('vale gás', '["auxílio gás", "benefício eventual"]'),
    ('sisu', '["vestibular", "ensino superior"]'),
    ('jovem aprendiz', '["aprendizagem", "menor aprendiz", "primeiro emprego"]'),
    ('estágio', '["estagiário", "programa de estágio"]'),
    ('farmácia de graça', '["farmácia popular", "medicamentos gratuitos", "assistência farmacêutica"]'),
    ('cemitério', '["sepultamento", "jazigo", "serviço funerário"]'),
    ('iluminação de natal', '["decoração natalina", "iluminação decorativa"]')
) AS r(root, synonyms);

-- +goose Down
DELETE FROM search_synonyms WHERE autor = 'search-admin-programmes';
