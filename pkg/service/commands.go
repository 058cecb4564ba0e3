package service

import (
	"context"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/program"
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
	shared := cfg.Shared()
	return program.Commands(ctx, args, map[string]program.RunFunc{
		"serve": func(ctx context.Context, _ []string) error { return program.Serve(ctx, newApp, cfg) },
		"migrate": func(ctx context.Context, args []string) error {
			return pg.MigrateCommand(ctx, shared.DB, shared.Logger, args, sets...)
		},
	})
}
