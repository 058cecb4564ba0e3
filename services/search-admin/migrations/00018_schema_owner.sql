-- +goose Up

-- The programs whose schema this database holds record themselves here
-- (pkg/pg.OwnerTable). jobs and search-admin both keep their versions in
-- goose_db_version: one started on the other's database (a DATABASE_URL
-- swapped between them) took the other's versions for its own, reported its
-- schema current, and answered every request with a 500. Now migrate and
-- readiness refuse a database that names other programs only.
CREATE TABLE IF NOT EXISTS schema_owner (service text PRIMARY KEY);
INSERT INTO schema_owner (service) VALUES ('search-admin') ON CONFLICT DO NOTHING;

-- +goose Down
DELETE FROM schema_owner WHERE service = 'search-admin';
