package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/gateway/internal/app"
)

func TestLoadConfigDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(nil))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct{ what, got, want string }{
		{"listen address", cfg.HTTP.Addr, ":8080"},
		{"routes", cfg.Routes.String(), "/go/v1=http://127.0.0.1:8082,/search=http://127.0.0.1:8081"},
		{"unauthenticated rate", cfg.RateLimit.Unauthenticated, "60-M"},
		{"client rate", cfg.RateLimit.PerClient, "600-M"},
		{"department rate", cfg.RateLimit.PerDepartment, "3000-M"},
		{"redis", cfg.RateLimit.RedisURL, "redis://127.0.0.1:6379/0"},
		{"issuer", cfg.OIDC.IssuerURL, "http://127.0.0.1:8090/auth/realms/municipal"},
		{"audience", cfg.OIDC.Audience, "api-gateway"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("default %s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if !cfg.RateLimit.Enabled || len(cfg.TrustedProxies) != 0 || cfg.HTTP.MaxBodyBytes != 1<<20 || cfg.Upstream.DialTimeout != 2*time.Second {
		t.Errorf("defaults: enabled %v, trusted %v, body %d, dial %s", cfg.RateLimit.Enabled, cfg.TrustedProxies, cfg.HTTP.MaxBodyBytes, cfg.Upstream.DialTimeout)
	}
}

func TestLoadConfigRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
	}{
		{"a malformed rate", map[string]string{"RATE_LIMIT_PER_CLIENT": "lots"}},
		{"a zero rate", map[string]string{"RATE_LIMIT_UNAUTHENTICATED": "0-M"}},
		{"a malformed department rate", map[string]string{"RATE_LIMIT_PER_DEPARTMENT": "5-W"}},
		{"a malformed override", map[string]string{"RATE_LIMIT_DEPARTMENT_OVERRIDES": "educacao"}},
		{"an empty routing table", map[string]string{"ROUTES": ","}},
		{"a route to a non-http upstream", map[string]string{"ROUTES": "/a=file:///etc"}},
		{"a bad trusted proxy", map[string]string{"TRUSTED_PROXIES": "10.0.0.0/99"}},
		{"a negative proxy hop count", map[string]string{"TRUSTED_PROXY_HOPS": "-1"}},
		{"a proxy hop count no deployment has", map[string]string{"TRUSTED_PROXY_HOPS": "9"}},
		{"a zero upstream timeout", map[string]string{"UPSTREAM_RESPONSE_TIMEOUT": "0s"}},
		{"a zero body limit", map[string]string{"HTTP_MAX_BODY_BYTES": "0"}},
		{"a zero redis probe interval", map[string]string{"REDIS_PROBE_INTERVAL": "0s"}},
		// A reviewer's: braces in the prefix give every key its hash tag.
		{"a key prefix holding a hash tag", map[string]string{"RATE_LIMIT_KEY_PREFIX": "a{b}"}},
		{"a key prefix holding a brace", map[string]string{"RATE_LIMIT_KEY_PREFIX": "rl}"}},
		// An operator's typo logged at info, in JSON, without a word.
		{"a log level nobody knows", map[string]string{"LOG_LEVEL": "verbose"}},
		{"a log format nobody knows", map[string]string{"LOG_FORMAT": "xml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused at start", func(t *testing.T) {
			t.Parallel()
			if _, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(tt.env)); err == nil {
				t.Fatal("LoadConfig succeeded")
			}
		})
	}
}
