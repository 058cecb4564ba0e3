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
	"time"

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
// migrations must record that name in the table schema_owner (OwnerTable;
// MigrateSets fails once they are applied if none does), and a
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
	if err := checkOwners(ctx, db, sets, false); err != nil {
		return err
	}
	for _, s := range sets {
		if err := migrateSet(ctx, db, s, log); err != nil {
			return err
		}
	}
	return checkOwners(ctx, db, sets, true)
}

// migrateRetryFor bounds how long migrateSet keeps trying a migration that
// lost a lock (lockLost): the time goose waits for the advisory lock.
// migrateFirstPause is the pause after the first loss; it doubles after
// each, up to migrateMaxPause.
var (
	migrateRetryFor   = 5 * time.Minute
	migrateFirstPause = 250 * time.Millisecond
	migrateMaxPause   = 10 * time.Second
)

// lockLost reports a migration that Postgres rolled back for its locks
// alone: it waited longer than lock_timeout, was chosen to break a deadlock,
// or met a serialization failure. Its transaction left nothing behind, so it
// can run again from its start.
func lockLost(err error) bool {
	return IsCode(err, LockNotAvailable) || IsCode(err, DeadlockDetected) || IsCode(err, SerializationFailure)
}

// migrateSet applies the pending migrations of one set. A migration that
// lost a lock (lockLost) is tried again after a pause, for up to
// migrateRetryFor: the replicas serving meanwhile (a rolling update runs
// migrate beside the old pods) hold locks of their own, in their own order,
// and a migration that waits at most lock_timeout for each lock
// (MigrateCommand) gives way to them instead of stalling them.
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
	start := time.Now()
	pause := migrateFirstPause
	for attempt := 1; ; attempt++ {
		results, err := p.Up(ctx)
		var partial *goose.PartialError
		if errors.As(err, &partial) {
			results = partial.Applied
		}
		logApplied(ctx, log, s, results)
		if err == nil {
			return nil
		}
		if !lockLost(err) {
			return fmt.Errorf("apply migrations of %s: %w", s.VersionTable(), err)
		}
		if time.Since(start)+pause > migrateRetryFor {
			return fmt.Errorf("apply migrations of %s: gave up after %d attempts in %s, each rolled back for its locks (a long transaction, see pg_stat_activity, may hold the table): %w",
				s.VersionTable(), attempt, time.Since(start).Round(time.Second), err)
		}
		if log != nil {
			var version int64
			if partial != nil && partial.Failed != nil && partial.Failed.Source != nil {
				version = partial.Failed.Source.Version
			}
			log.WarnContext(ctx, "migration rolled back for its locks, trying again", "set", s.VersionTable(),
				"version", version, "attempt", attempt, "pause", pause.String(), "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("apply migrations of %s: %w", s.VersionTable(), errors.Join(ctx.Err(), err))
		case <-time.After(pause):
		}
		pause = min(2*pause, migrateMaxPause)
	}
}

// logApplied logs each migration of results.
func logApplied(ctx context.Context, log *slog.Logger, s Set, results []*goose.MigrationResult) {
	if log == nil {
		return
	}
	for _, r := range results {
		log.InfoContext(ctx, "migration applied", "set", s.VersionTable(), "version", r.Source.Version,
			"file", r.Source.Path, "duration", r.Duration.String())
	}
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
