// Package service opens what every API service of the platform owns beside
// its own domain: the database pool and its readiness checks, the token
// verifier and the refresh of its keys, the idempotency keys and their
// sweeper, the metrics registry and the two listeners: the public one and
// the admin one of the probes and metrics. jobs and search-admin
// build their app packages on it; the gateway, which has no database, does
// not.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"golang.org/x/sync/errgroup"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/pkg/telemetry"
)

// Config is the part of a service's configuration every service shares;
// each service's app.Config embeds it.
type Config struct {
	HTTP        server.Config
	Admin       server.AdminConfig
	DB          pg.Config
	Log         server.LogConfig
	OIDC        auth.Config
	Idempotency idempotency.Config
	Tracing     telemetry.Config

	// Logger receives the service's logs; it is not read from the
	// environment. Nil means a logger of Log on standard error.
	Logger *slog.Logger `env:",noinit"`
}

// Validate reports shared settings that cannot work.
func (c Config) Validate() error {
	return errors.Join(c.HTTP.Validate(), c.Admin.Validate(c.HTTP.Addr), c.DB.Validate(), c.OIDC.Validate(), c.Idempotency.Validate(), c.Tracing.Validate(), c.Log.Validate())
}

// Shared returns c; through embedding, every service's app.Config has it.
func (c Config) Shared() Config { return c }

// Base is what Open opened for a service: the service wires its handler
// from these fields and serves it with Serve.
type Base struct {
	Logger   *slog.Logger
	DB       *gorm.DB
	Verifier *auth.Verifier
	// Tokens is Verifier behind a cache of the tokens it verified
	// (OIDC_TOKEN_CACHE_SIZE), what a service's routes authenticate with.
	Tokens *auth.TokenCache
	Keys   *idempotency.Keys
	// Metrics is the service's registry, the verifier's and the pool's
	// collectors in it.
	Metrics *server.Metrics
	// Tracing is the service's tracing; its Provider is nil when off. The
	// database's statements are traced through it.
	Tracing *telemetry.Tracing
	// Checks are the readiness checks every service has: postgres, schema
	// (the database is migrated as far as sets) and oidc; the admin
	// listener serves them.
	Checks []server.Check

	http   server.Config
	ln     server.Listeners
	schema func(context.Context) error
}

// Open connects to the database, builds the verifier, the idempotency keys
// and the readiness checks, and listens on cfg.HTTP.Addr and cfg.Admin.Addr; nothing is served
// until Serve. sets are the service's migration sets. The identity provider
// is not contacted: it may come up later.
func Open(ctx context.Context, cfg Config, sets []pg.Set) (b *Base, err error) {
	b = &Base{Logger: cfg.Logger, http: cfg.HTTP}
	if b.Logger == nil {
		b.Logger = server.NewLogger(os.Stderr, cfg.Log)
	}
	if b.Tracing, err = telemetry.New(ctx, cfg.Tracing, b.Logger); err != nil {
		return nil, err
	}
	db := cfg.DB
	db.Tracer = b.Tracing.Provider
	if b.DB, err = pg.Open(ctx, db, b.Logger); err != nil {
		return nil, errors.Join(err, b.Tracing.Shutdown())
	}
	opened := b // a failure below returns a nil *Base: close what was opened
	defer func() {
		if err != nil {
			err = errors.Join(err, opened.Close())
		}
	}()
	oidc := cfg.OIDC
	oidc.Logger = b.Logger
	if b.Verifier, err = auth.NewVerifier(oidc); err != nil {
		return nil, fmt.Errorf("token verifier: %w", err)
	}
	if b.Tokens, err = auth.NewTokenCache(b.Verifier, oidc.TokenCacheSize, nil); err != nil {
		return nil, fmt.Errorf("token cache: %w", err)
	}
	b.Metrics = server.NewMetrics()
	if err := b.Metrics.Registry.Register(b.Verifier.Collector()); err != nil {
		return nil, fmt.Errorf("register signing-key metrics: %w", err)
	}
	if err := pg.RegisterPoolMetrics(b.Metrics.Registry, b.DB, b.DB.Migrator().CurrentDatabase()); err != nil {
		return nil, err
	}
	if b.Keys, err = idempotency.New(b.DB, cfg.Idempotency, b.Logger); err != nil {
		return nil, fmt.Errorf("idempotency keys: %w", err)
	}
	sqlDB, err := b.DB.DB()
	if err != nil {
		return nil, fmt.Errorf("database handle: %w", err)
	}
	if b.schema, err = pg.SchemaCurrent(sqlDB, sets...); err != nil {
		return nil, err
	}
	b.Checks = []server.Check{
		{Name: "postgres", Critical: true, Probe: pg.Ping(b.DB)},
		{Name: "schema", Critical: true, Probe: b.schema},
		// Down only before any signing key was fetched; degraded while
		// the identity provider is unreachable and the keys held still verify.
		{Name: "oidc", Critical: true, Probe: b.Verifier.Ping},
	}
	if b.ln, err = server.ListenAll(cfg.HTTP, cfg.Admin); err != nil {
		return nil, err
	}
	b.ln.WarnAdminBusy(b.Logger, cfg.Admin)
	return b, nil
}

// SchemaCurrent is the readiness check "schema": nil once the database is
// migrated as far as the service's migration sets, else why not. A service
// that reads its tables at start asks it first, so that it waits, not
// ready, for migrate rather than exiting.
func (b *Base) SchemaCurrent(ctx context.Context) error { return b.schema(ctx) }

// Addr is the address the service listens on (the port chosen when
// HTTP_ADDR asked for port 0).
func (b *Base) Addr() string { return b.ln.Public.Addr().String() }

// AdminAddr is the address of the admin listener: /livez, /readyz and
// /metrics (the port chosen when ADMIN_ADDR asked for port 0).
func (b *Base) AdminAddr() string { return b.ln.Admin.Addr().String() }

// AdminHandler is the handler of the admin listener: /livez, /readyz with
// Checks, and /metrics of Metrics.
func (b *Base) AdminHandler() http.Handler {
	return server.AdminHandler(server.AdminOptions{Logger: b.Logger, Metrics: b.Metrics, Checks: b.Checks})
}

// Serve serves h on the public listener and AdminHandler on the admin one
// until ctx is done, then drains in-flight requests within the shutdown
// timeout. Meanwhile it keeps the signing keys fresh and, once the schema
// is current, sweeps expired idempotency keys and runs each of work, the
// service's own background loops; the first error of one of them stops
// everything.
func (b *Base) Serve(ctx context.Context, h http.Handler, work ...func(context.Context) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { b.Verifier.Run(ctx); return nil })
	g.Go(func() error {
		// A service started before migrate (not ready meanwhile) would
		// otherwise poll tables a migration is creating and altering: each
		// poll an error line, and one that locked in another order than the
		// migration made it fail with a deadlock.
		if !b.awaitSchema(ctx) {
			return nil
		}
		g.Go(func() error { b.Keys.RunSweeper(ctx); return nil })
		for _, run := range work {
			g.Go(func() error { return run(ctx) })
		}
		return nil
	})
	g.Go(func() error { return b.ln.Serve(ctx, b.http, h, b.AdminHandler(), b.Logger) })
	return g.Wait()
}

// schemaPoll is how often Serve checks the schema while it is not current.
const schemaPoll = time.Second

// awaitSchema returns true once the schema is current (at once, normally),
// false if ctx ends first.
func (b *Base) awaitSchema(ctx context.Context) bool {
	t := time.NewTicker(schemaPoll)
	defer t.Stop()
	for b.schema(ctx) != nil {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	return true
}

// Close stops listening, if Serve has not, closes the database pool and
// flushes the spans not yet exported.
func (b *Base) Close() error {
	return errors.Join(b.ln.Close(), pg.Close(b.DB), b.Tracing.Shutdown())
}
