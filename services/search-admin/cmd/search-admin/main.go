// Command search-admin serves the search catalog administration API
// (`search-admin` or `search-admin serve`) and applies its database
// migrations (`search-admin migrate [-create-database]`).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := realMain(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "search-admin:", err)
		os.Exit(1)
	}
}

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
