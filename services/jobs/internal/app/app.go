// Package app puts the jobs service together: its Config, read from the
// environment, and New, which opens the database, the token verifier and
// the idempotency keys and wires them into the HTTP handler. cmd/jobs and
// the service's tests start it the same way, through New.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/pkg/version"
	jobshttp "github.com/municipal-apis/platform/services/jobs/internal/http"
	"github.com/municipal-apis/platform/services/jobs/internal/postgres"
	"github.com/municipal-apis/platform/services/jobs/migrations"
)

// MigrationSets are the schema of the service and that of its idempotency
// keys, in the order the migrate command applies them.
var MigrationSets = []pg.Set{{FS: migrations.FS}, idempotency.MigrationSet}

// App is a wired jobs service listening on its address.
type App struct {
	cfg      Config
	logger   *slog.Logger
	db       *gorm.DB
	verifier *auth.Verifier
	keys     *idempotency.Keys
	handler  http.Handler
	ln       net.Listener
}

// New connects to the database, wires the service and listens on
// cfg.HTTP.Addr; nothing is served until Run. The identity provider is not
// contacted: it may come up later.
func New(ctx context.Context, cfg Config) (a *App, err error) {
	a = &App{cfg: cfg, logger: cfg.Logger}
	if a.logger == nil {
		a.logger = server.NewLogger(os.Stderr, cfg.Log)
	}
	if a.db, err = pg.Open(ctx, cfg.DB, a.logger); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, a.Close())
		}
	}()
	oidc := cfg.OIDC
	oidc.Logger = a.logger
	if a.verifier, err = auth.NewVerifier(oidc); err != nil {
		return nil, fmt.Errorf("token verifier: %w", err)
	}
	metrics := server.NewMetrics()
	if err := metrics.Registry.Register(a.verifier.Collector()); err != nil {
		return nil, fmt.Errorf("register signing-key metrics: %w", err)
	}
	if a.keys, err = idempotency.New(a.db, cfg.Idempotency, a.logger); err != nil {
		return nil, err
	}
	sqlDB, err := a.db.DB()
	if err != nil {
		return nil, fmt.Errorf("database handle: %w", err)
	}
	schema, err := pg.SchemaCurrent(sqlDB, MigrationSets...)
	if err != nil {
		return nil, err
	}
	a.handler = jobshttp.New(jobshttp.Options{
		Store:        postgres.New(a.db),
		Verifier:     a.verifier,
		Idempotency:  a.keys,
		Logger:       a.logger,
		Metrics:      metrics,
		MaxBodyBytes: cfg.HTTP.MaxBodyBytes,
		Checks: []server.Check{
			{Name: "postgres", Critical: true, Probe: pg.Ping(a.db)},
			{Name: "schema", Critical: true, Probe: schema},
			// Down only before any signing key was fetched; degraded while
			// the identity provider is unreachable and the keys held still verify.
			{Name: "oidc", Critical: true, Probe: a.verifier.Ping},
		},
	})
	if a.ln, err = server.Listen(cfg.HTTP.Addr); err != nil {
		return nil, err
	}
	return a, nil
}

// Addr is the address the service listens on (the port chosen when
// HTTP_ADDR asked for port 0).
func (a *App) Addr() string { return a.ln.Addr().String() }

// Handler is the service's whole handler: the API, /openapi.json and the probes.
func (a *App) Handler() http.Handler { return a.handler }

// Run serves until ctx is done, sweeping expired idempotency keys and
// keeping the signing keys fresh meanwhile, then drains in-flight requests
// within the shutdown timeout.
func (a *App) Run(ctx context.Context) error {
	bgCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { a.keys.RunSweeper(bgCtx) })
	wg.Go(func() { a.verifier.Run(bgCtx) })
	defer func() { stop(); wg.Wait() }()
	a.logger.InfoContext(ctx, "starting jobs", "version", version.Version, "addr", a.Addr())
	return server.Serve(ctx, server.New(a.cfg.HTTP, a.handler, a.logger), a.ln, a.cfg.HTTP.ShutdownTimeout, a.logger)
}

// Close stops listening, if Run has not, and closes the database pool.
func (a *App) Close() error {
	return errors.Join(server.CloseListener(a.ln), pg.Close(a.db))
}
