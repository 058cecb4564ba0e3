package service

import (
	"context"
	"log/slog"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/server"
)

// Configured is a service's app.Config: it embeds Config.
type Configured interface {
	Shared() Config
}

// Commands runs the subcommand args names of a service: serve (the
// default) builds the app with newApp from cfg, runs and closes it;
// migrate [-create-database] applies sets to the service's database.
func Commands[C Configured, A program.App](ctx context.Context, args []string, cfg C,
	newApp func(context.Context, C) (A, error), sets []pg.Set) error {
	return program.Commands(ctx, args, map[string]program.RunFunc{
		// serve takes no arguments: "serve -h" (a habit) answers with help
		// and a stray argument is refused, rather than starting a server.
		"serve": program.EnvOnly("see the service's README", func(ctx context.Context) error { return program.Serve(ctx, newApp, cfg) }),
		"migrate": func(ctx context.Context, args []string) error {
			if program.IsHelp(args) {
				return program.Usage(" migrate [-create-database]\n\nApplies the service's migrations to the database of DATABASE_URL, waiting up to\n" +
					"DATABASE_CONNECT_WAIT for its server; -create-database first creates that database when it does not exist.\n" +
					"A migration waits at most DATABASE_MIGRATE_LOCK_TIMEOUT for a table's lock, and one rolled back\n" +
					"for its locks is run again, for up to 5 minutes.")
			}
			shared := cfg.Shared()
			if shared.Logger == nil {
				shared.Logger = slog.Default()
			}
			return pg.MigrateCommand(ctx, shared.DB, shared.Logger, args, sets...)
		},
	})
}

// Main is the whole of a service's command: it reads the configuration
// from env with load, makes a logger of its Log settings the process
// default, and runs the subcommand args names (see Commands). The served
// app builds the same logger from the same settings.
func Main[C Configured, A program.App](ctx context.Context, args []string, env envconfig.Lookuper,
	load func(context.Context, envconfig.Lookuper) (C, error),
	newApp func(context.Context, C) (A, error), sets []pg.Set) error {
	// Help, of the program or of a command ("migrate -h"), comes before the
	// configuration, which it must not need.
	if program.IsHelp(args) || len(args) > 1 && program.IsHelp(args[1:]) {
		var none C
		return Commands(ctx, args, none, newApp, sets)
	}
	cfg, err := load(ctx, env)
	if err != nil {
		return err
	}
	program.WarnMisspelt(ctx, server.DefaultLogger(cfg.Shared().Log), cfg)
	return Commands(ctx, args, cfg, newApp, sets)
}
