package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// migrationSets are the schemas search-admin owns: its own and the
// idempotency keys'.
var migrationSets = []pg.Set{{FS: migrations.FS}, idempotency.MigrationSet}

// migrate applies the embedded migrations, creating the database first when
// -create-database is given.
func migrate(ctx context.Context, cfg Config, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	create := fs.Bool("create-database", false, "create the database of DATABASE_URL when it does not exist")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger := server.NewLogger(os.Stderr, cfg.Log)
	if *create {
		if err := pg.EnsureDatabase(ctx, cfg.Database.URL); err != nil {
			return err
		}
	}
	db, err := pg.Open(ctx, cfg.Database, logger)
	if err != nil {
		return err
	}
	defer func() { _ = pg.Close(db) }()
	sqlDB, err := db.DB()
	if err != nil {
		return fmt.Errorf("database handle: %w", err)
	}
	if err := pg.MigrateSets(ctx, sqlDB, logger, migrationSets...); err != nil {
		return err
	}
	logger.InfoContext(ctx, "migrations are up to date")
	return nil
}
