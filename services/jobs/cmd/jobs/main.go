// Command jobs serves the jobs and courses API: job postings, companies,
// education levels, public bodies, course categories and courses.
//
//	jobs [serve]                   run the HTTP server (default)
//	jobs migrate [-create-database] apply the embedded SQL migrations
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
	"github.com/municipal-apis/platform/services/jobs/internal/app"
)

func main() {
	program.Main("jobs", func(ctx context.Context, args []string) error {
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
