// Package app puts the jobs service together: its Config, read from the
// environment, and New, which opens what every service opens
// (pkg/service: database, token verifier, idempotency keys, listener) and
// wires the store and the HTTP handler on it. cmd/jobs and the service's
// tests start it the same way, through New.
package app

import (
	"context"
	"net/http"

	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/service"
	"github.com/municipal-apis/platform/pkg/version"
	jobshttp "github.com/municipal-apis/platform/services/jobs/internal/http"
	"github.com/municipal-apis/platform/services/jobs/internal/postgres"
	"github.com/municipal-apis/platform/services/jobs/migrations"
)

// MigrationSets are the schema of the service and that of its idempotency
// keys, in the order the migrate command applies them.
var MigrationSets = []pg.Set{{FS: migrations.FS, Owner: "jobs"}, idempotency.MigrationSet}

// App is a wired jobs service listening on its address; Addr and Close
// come from its service.Base.
type App struct {
	*service.Base
	handler http.Handler
}

// New opens the service's base and wires the handler on it; nothing is
// served until Run.
func New(ctx context.Context, cfg Config) (*App, error) {
	base, err := service.Open(ctx, cfg.Config, MigrationSets)
	if err != nil {
		return nil, err
	}
	return &App{Base: base, handler: jobshttp.New(jobshttp.Options{
		Store:        postgres.New(base.DB),
		Auth:         base.Tokens,
		Idempotency:  base.Keys,
		Logger:       base.Logger,
		Metrics:      base.Metrics,
		MaxBodyBytes: cfg.HTTP.MaxBodyBytes,
		Tracer:       base.Tracing.Provider,
	})}, nil
}

// Handler is the service's public handler: the API, /openapi.json and
// /livez; AdminHandler serves the probes and metrics.
func (a *App) Handler() http.Handler { return a.handler }

// Run serves until ctx is done (with the base's key sweeper and signing-key
// refresh), then drains in-flight requests within the shutdown timeout.
func (a *App) Run(ctx context.Context) error {
	a.Logger.InfoContext(ctx, "starting jobs", "version", version.Version, "addr", a.Addr(), "admin_addr", a.AdminAddr())
	return a.Serve(ctx, a.handler)
}
