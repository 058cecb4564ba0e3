package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/gateway/internal/clientip"
	"github.com/municipal-apis/platform/gateway/internal/proxy"
	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/pkg/telemetry"
)

// Defaults of the shared variables whose default differs per program.
var Defaults = map[string]string{"HTTP_ADDR": ":8080", "ADMIN_ADDR": ":9090", "OTEL_SERVICE_NAME": "gateway"}

// Config is the whole configuration of the gateway, read from the environment.
type Config struct {
	HTTP           server.Config
	Admin          server.AdminConfig
	Log            server.LogConfig
	OIDC           auth.Config
	Routes         route.Table `env:"ROUTES, default=/search=http://127.0.0.1:8081,/go/v1=http://127.0.0.1:8082"`
	Upstream       proxy.Config
	RateLimit      RateLimitConfig
	Tracing        telemetry.Config
	TrustedProxies clientip.Trusted `env:"TRUSTED_PROXIES"`
	// TrustedProxyHops, when positive, is how many proxies append to
	// X-Forwarded-For in front of the gateway; the client is that many
	// addresses from the right.
	TrustedProxyHops int `env:"TRUSTED_PROXY_HOPS, default=0"`

	// Logger receives the gateway's logs; it is not read from the
	// environment. Nil means a logger of Log on standard error.
	Logger *slog.Logger `env:",noinit"`
}

// maxProxyHops bounds TRUSTED_PROXY_HOPS; no deployment stacks more proxies.
const maxProxyHops = 8

// RateLimitConfig holds the limits and where their counters live. Rates are
// kept as written and parsed by Validate, so that an error names its variable.
type RateLimitConfig struct {
	Enabled         bool          `env:"RATE_LIMIT_ENABLED, default=true"`
	Unauthenticated string        `env:"RATE_LIMIT_UNAUTHENTICATED, default=60-M"`
	PerClient       string        `env:"RATE_LIMIT_PER_CLIENT, default=600-M"`
	PerDepartment   string        `env:"RATE_LIMIT_PER_DEPARTMENT, default=3000-M"`
	Overrides       string        `env:"RATE_LIMIT_DEPARTMENT_OVERRIDES"`
	KeyPrefix       string        `env:"RATE_LIMIT_KEY_PREFIX, default=rl"`
	RedisURL        string        `env:"REDIS_URL, default=redis://127.0.0.1:6379/0"`
	RedisTimeout    time.Duration `env:"REDIS_TIMEOUT, default=250ms"`
	ProbeInterval   time.Duration `env:"REDIS_PROBE_INTERVAL, default=1s"`
}

// LoadConfig reads the configuration from l (the environment in
// production), with the gateway's defaults, and validates it.
func LoadConfig(ctx context.Context, l envconfig.Lookuper) (Config, error) {
	var cfg Config
	err := program.LoadConfig(ctx, l, Defaults, &cfg)
	// Without ADMIN_ADDR, a busy default admin port is no reason not to
	// start (two gateways side by side on one host): see ListenAll.
	_, set := l.Lookup("ADMIN_ADDR")
	cfg.Admin.Defaulted = !set
	return cfg, err
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	if err := c.HTTP.Validate(); err != nil {
		return err
	}
	if err := c.Admin.Validate(c.HTTP.Addr); err != nil {
		return err
	}
	if err := c.OIDC.Validate(); err != nil {
		return err
	}
	if err := c.Tracing.Validate(); err != nil {
		return err
	}
	if err := c.Log.Validate(); err != nil {
		return err
	}
	rl := c.RateLimit
	switch {
	case c.TrustedProxyHops < 0 || c.TrustedProxyHops > maxProxyHops:
		return fmt.Errorf("TRUSTED_PROXY_HOPS must be between 0 and %d", maxProxyHops)
	case len(c.Routes) == 0:
		return errors.New("ROUTES is empty")
	case c.Upstream.DialTimeout <= 0 || c.Upstream.ResponseTimeout <= 0 || c.Upstream.MaxIdleConnsHost <= 0:
		return errors.New("UPSTREAM_DIAL_TIMEOUT, UPSTREAM_RESPONSE_TIMEOUT and UPSTREAM_MAX_IDLE_CONNS_PER_HOST must be positive")
	case rl.Enabled && (rl.RedisTimeout <= 0 || rl.ProbeInterval <= 0 || rl.KeyPrefix == ""):
		return errors.New("REDIS_TIMEOUT and REDIS_PROBE_INTERVAL must be positive and RATE_LIMIT_KEY_PREFIX set")
	case strings.ContainsAny(rl.KeyPrefix, "{}"):
		// Redis Cluster hashes the first {…} of a key: braces in the prefix
		// would put every counter in one slot.
		return errors.New("RATE_LIMIT_KEY_PREFIX must not contain { or }: each counter's key has its own hash tag")
	}
	_, err := rl.Rates()
	return err
}

// Rates parses the limits of c, naming the variable of any bad value.
func (c RateLimitConfig) Rates() (ratelimit.Config, error) {
	var out ratelimit.Config
	var err error
	for _, r := range []struct {
		name string
		in   string
		into *ratelimit.Rate
	}{
		{"RATE_LIMIT_UNAUTHENTICATED", c.Unauthenticated, &out.Unauthenticated},
		{"RATE_LIMIT_PER_CLIENT", c.PerClient, &out.PerClient},
		{"RATE_LIMIT_PER_DEPARTMENT", c.PerDepartment, &out.PerDepartment},
	} {
		if *r.into, err = ratelimit.ParseRate(r.in); err != nil {
			return out, fmt.Errorf("%s: %w", r.name, err)
		}
	}
	if out.Overrides, err = ratelimit.ParseOverrides(c.Overrides); err != nil {
		return out, fmt.Errorf("RATE_LIMIT_DEPARTMENT_OVERRIDES: %w", err)
	}
	return out, nil
}
