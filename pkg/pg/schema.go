package pg

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/pressly/goose/v3"
)

// undefinedTable is the SQLSTATE of a missing relation: a version table that
// no migration run has created yet.
const undefinedTable = "42P01"

// setVersion is the newest migration of one set the binary embeds.
type setVersion struct {
	table string
	want  int64
	owner string
}

// SchemaCurrent returns a readiness probe that fails while the schema of db
// is older than the binary: for each set, the highest version recorded in its
// version table must reach the newest migration the set embeds. A newer
// schema passes (the previous binary keeps serving after a migration). The
// probe only reads the version tables: it never creates one and takes no
// lock, so it runs under a role that cannot change the schema.
func SchemaCurrent(db *sql.DB, sets ...Set) (func(context.Context) error, error) {
	versions := make([]setVersion, 0, len(sets))
	for _, s := range sets {
		if err := s.validate(); err != nil {
			return nil, err
		}
		want, err := newestVersion(db, s)
		if err != nil {
			return nil, err
		}
		versions = append(versions, setVersion{table: s.VersionTable(), want: want, owner: s.Owner})
	}
	return func(ctx context.Context) error {
		for _, v := range versions {
			if err := v.check(ctx, db); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// newestVersion is the version of the last migration of s, 0 for none.
func newestVersion(db *sql.DB, s Set) (int64, error) {
	p, err := goose.NewProvider(goose.DialectPostgres, db, s.FS, goose.WithTableName(s.VersionTable()))
	if errors.Is(err, goose.ErrNoMigrations) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("migrations of %s: %w", s.VersionTable(), err)
	}
	sources := p.ListSources()
	if len(sources) == 0 {
		return 0, nil
	}
	return sources[len(sources)-1].Version, nil
}

// Probe causes of SchemaCurrent, the short codes /readyz shows.
const (
	CauseNotMigrated  = "not_migrated"   // a version table does not exist yet
	CauseSchemaBehind = "schema_behind"  // a set is older than the binary's migrations
	CauseForeign      = "foreign_schema" // the database holds another program's schema
)

// schemaError is a failed schema check; its text, for the log, names the
// table and versions, its cause is the code readiness bodies show.
type schemaError struct {
	cause string
	err   error
}

func (e *schemaError) Error() string      { return e.err.Error() }
func (e *schemaError) Unwrap() error      { return e.err }
func (e *schemaError) ProbeCause() string { return e.cause }

// check compares the applied version of one set with the binary's.
func (v setVersion) check(ctx context.Context, db *sql.DB) error {
	var got int64
	// The table name is a validated identifier (Set.validate), never input.
	err := db.QueryRowContext(ctx, `SELECT coalesce(max(version_id), 0) FROM `+v.table).Scan(&got)
	if IsCode(err, undefinedTable) {
		return &schemaError{CauseNotMigrated, fmt.Errorf("%s does not exist: the migrations never ran; run migrate", v.table)}
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", v.table, err)
	}
	if got < v.want {
		return &schemaError{CauseSchemaBehind, fmt.Errorf("%s is at version %d, this binary needs %d: run migrate", v.table, got, v.want)}
	}
	_, err = checkOwner(ctx, db, v.owner)
	return err
}

// checkOwners is checkOwner for each set that names its owner. Once every
// set is applied, each such owner must also be recorded: a set whose
// migrations never record it would leave the database unprotected without
// a word (checkOwner passes a database that records no owner).
func checkOwners(ctx context.Context, db *sql.DB, sets []Set, applied bool) error {
	for _, s := range sets {
		recorded, err := checkOwner(ctx, db, s.Owner)
		if err != nil {
			return err
		}
		if applied && s.Owner != "" && !recorded {
			return fmt.Errorf("migration set %q names the owner %q, which none of its migrations records: add one that runs "+
				"CREATE TABLE IF NOT EXISTS %s (service text PRIMARY KEY); INSERT INTO %s (service) VALUES ('%s') ON CONFLICT DO NOTHING;",
				s.Name, s.Owner, OwnerTable, OwnerTable, s.Owner)
		}
	}
	return nil
}

// checkOwner fails when db records owners of its schema (OwnerTable) and
// owner is not one of them, and reports whether owner is recorded. A
// database without the table passes: it was migrated before its programs
// recorded themselves, or not yet.
func checkOwner(ctx context.Context, db *sql.DB, owner string) (bool, error) {
	if owner == "" {
		return false, nil
	}
	var mine bool
	var owners sql.NullString // all of them, "" for none
	err := db.QueryRowContext(ctx, `SELECT coalesce(bool_or(service = $1), false), string_agg(service, ', ' ORDER BY service) FROM `+OwnerTable, owner).
		Scan(&mine, &owners)
	if IsCode(err, undefinedTable) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", OwnerTable, err)
	}
	if owners.Valid && !mine {
		return false, &schemaError{CauseForeign, fmt.Errorf("the database holds the schema of %s, not of %s: does DATABASE_URL name another program's database?",
			owners.String, owner)}
	}
	return mine, nil
}
