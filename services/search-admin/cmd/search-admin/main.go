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
	"github.com/municipal-apis/platform/pkg/service"
	"github.com/municipal-apis/platform/services/search-admin/internal/app"
)

func main() {
	program.Main("search-admin", func(ctx context.Context, args []string) error {
		return service.Main(ctx, args, envconfig.OsLookuper(), app.LoadConfig, app.New, app.MigrationSets)
	})
}
