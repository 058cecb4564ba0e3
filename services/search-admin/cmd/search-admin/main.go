// Command search-admin serves the search catalog administration API
// (`search-admin` or `search-admin serve`) and applies its database
// migrations (`search-admin migrate [-create-database]`).
//
// The service is put together by internal/app; this command only reads the
// environment and calls it.
package main

import (
	"context"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/pkg/service"
	"github.com/municipal-apis/platform/services/search-admin/internal/app"
)

func main() {
	program.Main("search-admin", func(ctx context.Context, args []string) error {
		return realMain(ctx, args, envconfig.OsLookuper())
	})
}

// realMain reads the configuration from env and runs the subcommand named in args.
func realMain(ctx context.Context, args []string, env envconfig.Lookuper) error {
	cfg, err := app.LoadConfig(ctx, env)
	if err != nil {
		return err
	}
	cfg.Logger = server.DefaultLogger(cfg.Log)
	return service.Commands(ctx, args, cfg, app.New, app.MigrationSets)
}
