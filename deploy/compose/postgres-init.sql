-- Runs once, when the compose stack's Postgres volume is first initialised:
-- one database per service, each owned and migrated by that service alone.
CREATE DATABASE search_admin;
CREATE DATABASE jobs;
