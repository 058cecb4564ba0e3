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
	"github.com/municipal-apis/platform/pkg/service"
	"github.com/municipal-apis/platform/services/jobs/internal/app"
)

func main() {
	program.Main("jobs", func(ctx context.Context, args []string) error {
		return service.Main(ctx, args, envconfig.OsLookuper(), app.LoadConfig, app.New, app.MigrationSets)
	})
}
