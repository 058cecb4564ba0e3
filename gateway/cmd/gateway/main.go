// Command gateway is the platform's front door: OIDC bearer authentication,
// Redis-backed rate limits per address, client and department, and routing
// by path prefix to the services. Configuration comes from the environment;
// see the gateway's README.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/municipal-apis/platform/gateway/internal/gateway"
	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/pkg/version"
	"github.com/sethvargo/go-envconfig"
)

func main() {
	program.Main("gateway", func(ctx context.Context, _ []string) error { return realMain(ctx) })
}

// realMain reads the configuration, wires the gateway and serves until ctx is done.
func realMain(ctx context.Context) error {
	cfg, err := gateway.LoadConfig(ctx, envconfig.OsLookuper())
	if err != nil {
		return err
	}
	logger := server.NewLogger(os.Stderr, cfg.Log)
	slog.SetDefault(logger)
	ratelimit.LogRedisTo(logger)
	verifier, err := auth.NewVerifier(cfg.OIDC.VerifierConfig(logger))
	if err != nil {
		return fmt.Errorf("configure token verification: %w", err)
	}
	app, err := gateway.New(cfg, verifier, logger)
	if err != nil {
		return err
	}
	defer app.Close()
	ln, err := net.Listen("tcp", cfg.HTTP.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.HTTP.Addr, err)
	}
	logger.InfoContext(ctx, "gateway starting", "version", version.Version,
		"routes", cfg.Routes.String(), "rate_limits", cfg.RateLimit.Enabled)
	return app.Serve(ctx, ln)
}
