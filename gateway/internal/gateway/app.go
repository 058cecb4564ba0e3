package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"

	"github.com/redis/go-redis/v9"

	"github.com/municipal-apis/platform/gateway/internal/proxy"
	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/server"
)

// App is a wired gateway: its full handler and the Redis watcher behind its limits.
type App struct {
	cfg     Config
	logger  *slog.Logger
	handler http.Handler
	redis   *redis.Client    // nil when rate limiting is off
	store   *ratelimit.Store // nil when rate limiting is off
}

// New wires a gateway from cfg. It contacts neither Redis nor the identity
// provider: both may come up later.
func New(cfg Config, verifier *auth.Verifier, logger *slog.Logger) (*App, error) {
	metrics := server.NewMetrics()
	upstreamMetrics, err := proxy.NewMetrics(metrics.Registry)
	if err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, logger: logger}
	h := &handler{
		routes:    cfg.Routes,
		upstreams: make(map[string]*proxy.Upstream, len(cfg.Routes)),
		tokens:    newTokenCache(verifier, cfg.OIDC.CacheSize),
		trusted:   cfg.TrustedProxies,
		maxBody:   cfg.HTTP.MaxBodyBytes,
	}
	for _, rt := range cfg.Routes {
		h.upstreams[rt.Prefix] = proxy.New(rt, cfg.Upstream, upstreamMetrics, logger)
	}
	checks := []server.Check{{Name: "jwks", Critical: true, Probe: verifier.Ping}}
	if cfg.RateLimit.Enabled {
		if h.limits, err = a.newLimits(metrics); err != nil {
			return nil, err
		}
		checks = append(checks, server.Check{Name: "redis", Probe: a.store.Ping})
	}
	a.handler = server.Handler(server.Options{
		Logger:  logger,
		Metrics: metrics,
		Checks:  checks,
		App:     h,
		// The handler applies the body limit itself, after the rate-limit
		// headers are set, so that a 413 carries them too.
		MaxBodyBytes: math.MaxInt64,
	})
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
	a.store = ratelimit.NewStore(a.redis, rl.KeyPrefix, a.logger, m)
	return ratelimit.New(a.store, rates, m), nil
}

// Handler returns the gateway's handler: probes, metrics and the proxy.
func (a *App) Handler() http.Handler { return a.handler }

// Serve watches Redis and serves on ln until ctx is done, then drains
// in-flight requests within the shutdown timeout.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
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
	srv := server.New(a.cfg.HTTP, a.handler, a.logger)
	return server.Serve(ctx, srv, ln, a.cfg.HTTP.ShutdownTimeout, a.logger)
}

// Close releases the Redis client.
func (a *App) Close() error {
	if a.redis == nil {
		return nil
	}
	if err := a.redis.Close(); err != nil {
		return fmt.Errorf("close redis client: %w", err)
	}
	return nil
}
