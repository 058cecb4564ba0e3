-- +goose Up

-- Every serving replica says, at each of its re-index polls, which search
-- schema versions its build defines, and until when to count it as running.
-- A re-index to a version, or a rollback to one, that a running replica does
-- not define is refused: that replica (an older release during a rolling
-- update, or after a rollback) would answer 500 to every search and write
-- once the version is a target or current. Replicas of releases before this
-- table say nothing, so the rule holds from the release after it on.
CREATE TABLE search_replicas (
    holder     text PRIMARY KEY,
    versions   text[] NOT NULL,
    release    text NOT NULL,
    expires_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE search_replicas;
