package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/pkg/version"
	jobshttp "github.com/municipal-apis/platform/services/jobs/internal/http"
	"github.com/municipal-apis/platform/services/jobs/internal/postgres"
	"github.com/municipal-apis/platform/services/jobs/migrations"
)

// realMain reads the configuration and runs the subcommand named in args.
func realMain(ctx context.Context, args []string) error {
	cfg, err := loadConfig(ctx, envconfig.OsLookuper())
	if err != nil {
		return err
	}
	logger := server.NewLogger(os.Stderr, cfg.Log)
	slog.SetDefault(logger)
	cmd, rest := "serve", args
	if len(args) > 0 {
		cmd, rest = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, cfg, logger)
	case "migrate":
		return migrate(ctx, cfg, logger, rest)
	}
	return fmt.Errorf("unknown command %q (want serve or migrate)", cmd)
}

// migrate applies the embedded migrations of the service and of the shared
// idempotency keys, creating the database first when asked.
func migrate(ctx context.Context, cfg config, logger *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	create := fs.Bool("create-database", false, "create the database of DATABASE_URL when it does not exist")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *create {
		if err := pg.EnsureDatabase(ctx, cfg.DB.URL); err != nil {
			return err
		}
	}
	db, err := pg.Open(ctx, cfg.DB, logger)
	if err != nil {
		return err
	}
	defer pg.Close(db)
	sqlDB, err := db.DB()
	if err != nil {
		return fmt.Errorf("database handle: %w", err)
	}
	return pg.MigrateSets(ctx, sqlDB, logger, pg.Set{FS: migrations.FS}, idempotency.MigrationSet)
}

// serve runs the HTTP server until ctx is done.
func serve(ctx context.Context, cfg config, logger *slog.Logger) error {
	db, err := pg.Open(ctx, cfg.DB, logger)
	if err != nil {
		return err
	}
	defer pg.Close(db)
	verifier, err := auth.NewVerifier(auth.Config{IssuerURL: cfg.OIDC.IssuerURL, JWKSURL: cfg.OIDC.JWKSURL, Audience: cfg.OIDC.Audience, Logger: logger})
	if err != nil {
		return fmt.Errorf("token verifier: %w", err)
	}
	keys, err := idempotency.New(db, cfg.Idempotency, logger)
	if err != nil {
		return err
	}
	go keys.RunSweeper(ctx)
	h := jobshttp.New(jobshttp.Options{
		Store:        postgres.New(db),
		Verifier:     verifier,
		Idempotency:  keys,
		Logger:       logger,
		Metrics:      server.NewMetrics(),
		MaxBodyBytes: cfg.HTTP.MaxBodyBytes,
		Checks: []server.Check{
			{Name: "postgres", Critical: true, Probe: pg.Ping(db)},
			{Name: "identity_provider", Critical: false, Probe: verifier.Ping},
		},
	})
	logger.InfoContext(ctx, "starting jobs", "version", version.Version, "addr", cfg.HTTP.Addr)
	return server.Run(ctx, server.New(cfg.HTTP, h, logger), cfg.HTTP.ShutdownTimeout, logger)
}
