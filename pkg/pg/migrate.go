package pg

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// DefaultVersionTable is the goose version table of the unnamed set: the
// program's own migrations.
const DefaultVersionTable = "goose_db_version"

// Set is one group of goose SQL migrations (files at the root of FS) with its
// own version history, so a shared component can own its schema beside the
// program's: Set{Name: "idempotency"} records its versions in
// goose_idempotency, while the unnamed set uses goose_db_version.
//
// Owner, when set, names the program whose schema the set is. Its
// migrations record that name in the table schema_owner (OwnerTable), and a
// database whose schema_owner names other programs only is refused, by
// migrate and by readiness: programs that share the default version table
// would otherwise take each other's versions for their own, and one started
// on another's database (a DATABASE_URL swapped) would report its schema
// current and answer every request with a 500.
type Set struct {
	Name  string
	FS    fs.FS
	Owner string
}

// OwnerTable records the programs whose schema a database holds: one row,
// (service text PRIMARY KEY), each, added by their own migrations.
const OwnerTable = "schema_owner"

// setName keeps a set's version table a plain, unquoted SQL identifier.
var setName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,56}$`)

// VersionTable returns the table that records which migrations of s are applied.
func (s Set) VersionTable() string {
	if s.Name == "" {
		return DefaultVersionTable
	}
	return "goose_" + s.Name
}

// validate reports a name that cannot form a version table.
func (s Set) validate() error {
	if s.Name != "" && !setName.MatchString(s.Name) {
		return fmt.Errorf("migration set name %q must be lower-case letters, digits and _ (at most 57), starting with a letter", s.Name)
	}
	if s.FS == nil {
		return fmt.Errorf("migration set %q has no files", s.Name)
	}
	return nil
}

// Migrate applies every pending migration of migrations (goose SQL files at
// its root) to db. Runs from several replicas or processes are serialized by a
// Postgres advisory lock, so it is safe to run at every start.
func Migrate(ctx context.Context, db *sql.DB, migrations fs.FS, log *slog.Logger) error {
	return MigrateSets(ctx, db, log, Set{FS: migrations})
}

// MigrateSets applies each set in order, each with its own version table and
// under the same advisory lock as Migrate, so concurrent runners of any set
// wait for each other.
func MigrateSets(ctx context.Context, db *sql.DB, log *slog.Logger, sets ...Set) error {
	seen := map[string]bool{}
	for _, s := range sets {
		if err := s.validate(); err != nil {
			return err
		}
		if seen[s.VersionTable()] {
			return fmt.Errorf("migration set %q given twice", s.Name)
		}
		seen[s.VersionTable()] = true
	}
	// Before anything is applied to another program's database, and after:
	// on one whose versions reach this program's, nothing is applied and
	// nothing records this program.
	if err := checkOwners(ctx, db, sets); err != nil {
		return err
	}
	for _, s := range sets {
		if err := migrateSet(ctx, db, s, log); err != nil {
			return err
		}
	}
	if err := checkOwners(ctx, db, sets); err != nil {
		return err
	}
	return nil
}

// migrateSet applies the pending migrations of one set.
func migrateSet(ctx context.Context, db *sql.DB, s Set, log *slog.Logger) error {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, s.FS,
		goose.WithSessionLocker(locker), goose.WithTableName(s.VersionTable()))
	if err != nil {
		return fmt.Errorf("migration provider of %s: %w", s.VersionTable(), err)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("apply migrations of %s: %w", s.VersionTable(), err)
	}
	for _, r := range results {
		if log != nil {
			log.InfoContext(ctx, "migration applied", "set", s.VersionTable(), "version", r.Source.Version,
				"file", r.Source.Path, "duration", r.Duration.String())
		}
	}
	return nil
}

// EnsureDatabase creates the database named in dsn when it does not exist,
// connecting to the server's "postgres" maintenance database to do so.
func EnsureDatabase(ctx context.Context, dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return errors.New("EnsureDatabase needs a URL-form DATABASE_URL (postgres://...)")
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" {
		return errors.New("DATABASE_URL names no database")
	}
	admin := *u
	admin.Path = "/postgres"
	conn, err := pgx.Connect(ctx, admin.String())
	if err != nil {
		return fmt.Errorf("connect to maintenance database: %w", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %q: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	// Created meanwhile by another process: Postgres reports either
	// duplicate_database or, when both inserts race, a catalog unique violation.
	if IsCode(err, "42P04") || IsCode(err, UniqueViolation) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	return nil
}
