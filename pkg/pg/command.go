package pg

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
)

// MigrateCommand is the migrate subcommand of a program that owns a
// database: "migrate [-create-database]" creates the database of cfg.URL
// when asked and it does not exist, then applies sets in order
// (MigrateSets). args are the arguments after "migrate". Like Open, it
// waits up to cfg.ConnectWait for a server that is not there yet. Its
// sessions wait at most cfg.MigrateLockTimeout for a lock.
func MigrateCommand(ctx context.Context, cfg Config, log *slog.Logger, args []string, sets ...Set) (err error) {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	create := fs.Bool("create-database", false, "create the database of DATABASE_URL when it does not exist")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *create {
		if err := waitForServer(ctx, func(ctx context.Context) error { return EnsureDatabase(ctx, cfg.URL) }, cfg.ConnectWait, log); err != nil {
			return err
		}
	}
	cfg.StatementTimeout = 0 // a migration may rewrite a large table
	cfg.lockTimeout = cfg.MigrateLockTimeout
	db, err := Open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, Close(db)) }()
	sqlDB, err := db.DB()
	if err != nil {
		return fmt.Errorf("database handle: %w", err)
	}
	if err := MigrateSets(ctx, sqlDB, log, sets...); err != nil {
		return err
	}
	log.InfoContext(ctx, "migrations are up to date")
	return nil
}
