// Command search-admin serves the search catalog administration API
// (`search-admin` or `search-admin serve`) and applies its database
// migrations (`search-admin migrate [-create-database]`).
package main

import (
	"context"
	"fmt"

	"github.com/municipal-apis/platform/pkg/program"
)

func main() { program.Main("search-admin", realMain) }

// realMain reads the configuration once and runs the subcommand in args.
func realMain(ctx context.Context, args []string) error {
	cfg, err := loadConfig(ctx)
	if err != nil {
		return err
	}
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, cfg)
	case "migrate":
		return migrate(ctx, cfg, args)
	}
	return fmt.Errorf("unknown command %q (usage: search-admin [serve | migrate [-create-database]])", cmd)
}
