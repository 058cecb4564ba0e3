// Package app puts the gateway together: its Config, read from the
// environment, and New, which builds the token verifier, the upstream
// proxies and the Redis-backed rate limits and wires them into the
// gateway's handler. cmd/gateway and the gateway's tests start it the same
// way, through New.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/redis/go-redis/v9"
	"github.com/valyala/fasthttp"

	"github.com/municipal-apis/platform/gateway/internal/clientip"
	"github.com/municipal-apis/platform/gateway/internal/gateway"
	"github.com/municipal-apis/platform/gateway/internal/portal"
	"github.com/municipal-apis/platform/gateway/internal/proxy"
	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/pkg/telemetry"
	"github.com/municipal-apis/platform/pkg/version"
)

// App is a wired gateway listening on its address: its full handler, the
// refresh of its signing keys and the Redis watcher behind its limits.
type App struct {
	cfg      Config
	logger   *slog.Logger
	verifier *auth.Verifier
	public   *server.FastServer
	admin    http.Handler
	redis    *redis.Client    // nil when rate limiting is off
	store    *ratelimit.Store // nil when rate limiting is off
	tracing  *telemetry.Tracing
	ln       server.Listeners
}

// New wires a gateway from cfg and listens on cfg.HTTP.Addr; nothing is
// served until Run. It contacts neither Redis nor the identity provider:
// both may come up later.
func New(ctx context.Context, cfg Config) (_ *App, err error) {
	a := &App{cfg: cfg, logger: cfg.Logger}
	if a.logger == nil {
		a.logger = server.NewLogger(os.Stderr, cfg.Log)
	}
	tracing, err := telemetry.New(ctx, cfg.Tracing, a.logger)
	if err != nil {
		return nil, err
	}
	a.tracing = tracing
	defer func() {
		if err != nil {
			err = errors.Join(err, a.Close())
		}
	}()
	oidc := cfg.OIDC
	oidc.Logger = a.logger
	verifier, err := auth.NewVerifier(oidc)
	if err != nil {
		return nil, fmt.Errorf("configure token verification: %w", err)
	}
	a.verifier = verifier
	metrics := server.NewMetrics()
	upstreamMetrics, err := proxy.NewMetrics(metrics.Registry)
	if err != nil {
		return nil, err
	}
	if err := metrics.Registry.Register(verifier.Collector()); err != nil {
		return nil, fmt.Errorf("register signing-key metrics: %w", err)
	}
	// Critical, yet only when no key set was ever fetched: while keys are
	// held, an unreachable provider leaves the gateway ready and degraded.
	checks := []server.Check{{Name: "oidc", Critical: true, Probe: verifier.Ping}}
	var limits *ratelimit.Limits
	if cfg.RateLimit.Enabled {
		if limits, err = a.newLimits(metrics); err != nil {
			return nil, err
		}
		checks = append(checks, server.Check{Name: "redis", Probe: a.store.Ping})
	}
	h, err := gateway.New(gateway.Options{
		Routes:         cfg.Routes,
		Upstream:       cfg.Upstream,
		Metrics:        upstreamMetrics,
		Verifier:       verifier,
		TokenCacheSize: cfg.OIDC.TokenCacheSize,
		Limits:         limits,
		ClientIP:       clientip.Policy{Proxies: cfg.TrustedProxies, Hops: cfg.TrustedProxyHops},
		MaxBodyBytes:   cfg.HTTP.MaxBodyBytes,
		Logger:         a.logger,
		Tracer:         tracing.Provider,
	})
	if err != nil {
		return nil, err
	}
	docs, err := portal.New(portal.Options{Routes: cfg.Routes, IssuerURL: oidc.IssuerURL, Logger: a.logger})
	if err != nil {
		return nil, err
	}
	// /docs needs no token and spends no rate limit; it is served through
	// net/http, the rest of the gateway on fasthttp (docs/decisions.md).
	docsHandler := server.FromHTTP(server.Compress(docs))
	// serveDocs answers a request under /docs. Its path is checked as a
	// routed one is (docs/decisions.md): ".." in any spelling or an encoded
	// "/" or "\" is a 400, not a path net/http decodes and resolves.
	serveDocs := func(c *fasthttp.RequestCtx) {
		if _, err := route.Canonicalize(string(c.URI().PathOriginal())); err != nil {
			server.WriteFastProblem(c, err)
			return
		}
		docsHandler(c)
	}
	a.public = server.NewFast(cfg.HTTP, server.NewFastHandler(server.FastOptions{
		Logger:  a.logger,
		Metrics: metrics,
		App: func(c *fasthttp.RequestCtx) {
			if portal.Owns(server.FastPath(c)) {
				serveDocs(c)
				return
			}
			h.Serve(c)
		},
		Expect: func(c *fasthttp.RequestCtx) bool {
			if !portal.Owns(server.FastPath(c)) {
				return h.Expect(c)
			}
			if c.IsGet() || c.IsHead() {
				return true
			}
			serveDocs(c) // the portal's 405, answered instead of inviting a body it refuses
			return false
		},
		Tracer: tracing.Provider,
	}), a.logger)
	a.admin = server.AdminHandler(server.AdminOptions{Logger: a.logger, Metrics: metrics, Checks: checks})
	if a.ln, err = server.ListenAll(cfg.HTTP, cfg.Admin); err != nil {
		return nil, err
	}
	a.ln.WarnAdminBusy(a.logger, cfg.Admin)
	return a, nil
}

// newLimits opens the Redis client and the fallback store of the limits.
func (a *App) newLimits(metrics *server.Metrics) (*ratelimit.Limits, error) {
	rl := a.cfg.RateLimit
	rates, err := rl.Rates()
	if err != nil {
		return nil, err
	}
	m, err := ratelimit.NewMetrics(metrics.Registry)
	if err != nil {
		return nil, err
	}
	if a.redis, err = ratelimit.NewRedisClient(rl.RedisURL, rl.RedisTimeout); err != nil {
		return nil, err
	}
	if err := ratelimit.TraceRedis(a.redis, a.tracing.Provider); err != nil {
		return nil, err
	}
	a.store = ratelimit.NewStore(a.redis, rl.KeyPrefix, a.logger, m)
	return ratelimit.New(a.store, rates, m), nil
}

// Addr is the address the gateway listens on (the port chosen when
// HTTP_ADDR asked for port 0).
func (a *App) Addr() string { return a.ln.Public.Addr().String() }

// AdminAddr is the address of the admin listener: /livez, /readyz and
// /metrics (the port chosen when ADMIN_ADDR asked for port 0).
func (a *App) AdminAddr() string { return a.ln.Admin.Addr().String() }

// AdminHandler returns the handler of the admin listener.
func (a *App) AdminHandler() http.Handler { return a.admin }

// Run keeps the signing keys fresh, watches Redis and serves until ctx is
// done, then drains in-flight requests within the shutdown timeout.
func (a *App) Run(ctx context.Context) error {
	a.logger.InfoContext(ctx, "gateway starting", "version", version.Version, "addr", a.Addr(), "admin_addr", a.AdminAddr(),
		"routes", a.cfg.Routes.String(), "rate_limits", a.cfg.RateLimit.Enabled)
	keysCtx, stopKeys := context.WithCancel(ctx)
	keysDone := make(chan struct{})
	go func() { defer close(keysDone); a.verifier.Run(keysCtx) }()
	defer func() { stopKeys(); <-keysDone }()
	if a.store != nil {
		a.store.Probe(ctx, a.cfg.RateLimit.RedisTimeout)
		watchCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			a.store.Watch(watchCtx, a.cfg.RateLimit.ProbeInterval, a.cfg.RateLimit.RedisTimeout)
		}()
		defer func() { stop(); <-done }()
	}
	return a.ln.ServeWith(ctx, a.cfg.HTTP, a.public, a.admin, a.logger)
}

// Close stops listening, if Run has not, releases the Redis client and
// flushes the spans not yet exported.
func (a *App) Close() error {
	err := a.ln.Close()
	if a.redis != nil {
		if cerr := a.redis.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close redis client: %w", cerr))
		}
	}
	return errors.Join(err, a.tracing.Shutdown())
}
