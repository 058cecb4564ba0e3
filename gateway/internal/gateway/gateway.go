// Package gateway is the platform's front door: it authenticates every
// routed request, applies the rate limits, and proxies it to the upstream
// that owns its path prefix. internal/app builds it from the configuration.
package gateway

import (
	"fmt"
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/gateway/internal/clientip"
	"github.com/municipal-apis/platform/gateway/internal/proxy"
	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/auth"
)

// Options are what the gateway's handler is made of.
type Options struct {
	Routes   route.Table
	Upstream proxy.Config   // transport and timeouts of every upstream
	Metrics  *proxy.Metrics // of the upstream calls
	Verifier *auth.Verifier
	// TokenCacheSize bounds how many verified tokens are remembered (least
	// recently used out first); 0 verifies every request's signature.
	TokenCacheSize int
	Limits         *ratelimit.Limits // nil when rate limiting is off
	ClientIP       clientip.Policy   // whose X-Forwarded-For names the client
	MaxBodyBytes   int64
	Logger         *slog.Logger
	// Tracer, when set, gives every upstream call a client span; nil
	// adds nothing.
	Tracer trace.TracerProvider
}

// New returns the handler of every request that is not a probe: admit
// (limits and token), then route, then proxy.
func New(o Options) (*Handler, error) {
	tokens, err := auth.NewTokenCache(o.Verifier, o.TokenCacheSize, nil)
	if err != nil {
		return nil, fmt.Errorf("token cache: %w", err)
	}
	h := &Handler{
		routes:    o.Routes,
		upstreams: make(map[string]*proxy.Upstream, len(o.Routes)),
		tokens:    tokens,
		limits:    o.Limits,
		clientIP:  o.ClientIP,
		maxBody:   o.MaxBodyBytes,
	}
	for _, rt := range o.Routes {
		h.upstreams[rt.Prefix] = proxy.New(rt, o.Upstream, o.Metrics, o.Logger, o.Tracer)
	}
	return h, nil
}
