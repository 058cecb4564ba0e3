// Command gateway is the platform's front door: OIDC bearer authentication,
// Redis-backed rate limits per address, client and department, and routing
// by path prefix to the services. Configuration comes from the environment;
// see the gateway's README. The gateway is put together by internal/app;
// this command only reads the environment and calls it.
package main

import (
	"context"
	"errors"
	"os"
	"runtime/debug"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/gateway/internal/app"
	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/server"
)

func main() {
	collectLessOften()
	program.Main("gateway", program.EnvOnly("gateway/README.md", realMain))
}

// gcPercent is the gateway's GOGC unless the environment sets one. Its live
// heap is small (the token cache, pooled buffers) while every request
// allocates, so collecting at 5× the live heap instead of 2× cuts the
// collector's share of the CPU at a cost of a few tens of megabytes;
// GOMEMLIMIT, which the deployments set to the container's limit, still
// makes it collect harder near the limit.
const gcPercent = 400

// collectLessOften applies gcPercent when GOGC is not set.
func collectLessOften() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}

// realMain reads the configuration and serves until ctx is done.
func realMain(ctx context.Context) error {
	cfg, err := app.LoadConfig(ctx, envconfig.OsLookuper())
	if err != nil {
		return err
	}
	// One access-log line per request: gathered and written every 100 ms
	// rather than one write call each (the gateway README's "Access log").
	logs := server.NewLogBuffer(os.Stderr, 100*time.Millisecond)
	cfg.Logger = server.DefaultLoggerTo(logs, cfg.Log)
	program.WarnMisspelt(ctx, cfg.Logger, cfg)
	ratelimit.LogRedisTo(cfg.Logger)
	return errors.Join(program.Serve(ctx, app.New, cfg), logs.Close())
}
