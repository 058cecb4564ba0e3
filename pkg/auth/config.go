package auth

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/municipal-apis/platform/pkg/program"
)

// Defaults of Config.
const (
	// DefaultIssuerURL is the issuer of the development identity provider of `make run`.
	DefaultIssuerURL = "http://127.0.0.1:8090/auth/realms/municipal"
	// DefaultAudience is the audience every platform access token carries.
	DefaultAudience = "api-gateway"
	// DefaultRefreshInterval is how often the JWKS is fetched again, so that
	// a key the provider stops announcing stops being trusted.
	DefaultRefreshInterval = 5 * time.Minute
	// DefaultClockSkew tolerates this much clock difference with the
	// identity provider on exp, nbf and iat.
	DefaultClockSkew = 30 * time.Second
	// DefaultMaxTokenLifetime bounds exp - iat of an accepted token.
	DefaultMaxTokenLifetime = 24 * time.Hour
	// DefaultRefetchCooldown is the shortest interval between two JWKS
	// fetches: forged key ids cost the identity provider at most one JWKS
	// request (and one of its discovery document) a second per instance,
	// and a key the provider starts signing with just after an instance's
	// last fetch gets 401s from that instance for at most a second.
	DefaultRefetchCooldown = time.Second
	// JWKSPath is Keycloak's JWKS path below the issuer URL; devidp serves the same.
	JWKSPath = "/protocol/openid-connect/certs"
	// MaxTokenBytes bounds the size of an accepted token.
	MaxTokenBytes = 8 << 10
)

// fetchTimeout bounds one JWKS fetch even when HTTPClient has no timeout.
const fetchTimeout = 10 * time.Second

// Config configures a Verifier. Every program embeds it in its own
// configuration, so the OIDC_* variables mean the same everywhere; a zero
// field takes its default, and only IssuerURL has no usable one outside
// local runs.
type Config struct {
	// IssuerURL is the exact "iss" of accepted tokens.
	IssuerURL string `env:"OIDC_ISSUER_URL, default=http://127.0.0.1:8090/auth/realms/municipal"`
	// JWKSURL is where the signing keys are fetched; it defaults to
	// IssuerURL + JWKSPath and may differ from it (an in-cluster address).
	JWKSURL string `env:"OIDC_JWKS_URL"`
	// Audience must be one of the token's "aud" values.
	Audience string `env:"OIDC_AUDIENCE, default=api-gateway"`
	// RefreshInterval is how often Run fetches the JWKS again; a shorter
	// Cache-Control max-age from the provider wins, down to RefetchCooldown.
	RefreshInterval time.Duration `env:"OIDC_JWKS_REFRESH_INTERVAL, default=5m"`
	// ClockSkew is the one tolerance applied to exp, nbf and iat.
	ClockSkew time.Duration `env:"OIDC_CLOCK_SKEW, default=30s"`
	// MaxTokenLifetime refuses tokens whose exp - iat is longer.
	MaxTokenLifetime time.Duration `env:"OIDC_MAX_TOKEN_LIFETIME, default=24h"`
	// TokenCacheSize bounds how many verified tokens a program's
	// TokenCache remembers (least recently used first out); 0 verifies
	// every request's signature.
	TokenCacheSize int `env:"OIDC_TOKEN_CACHE_SIZE, default=10000"`

	// The fields below are not read from the environment.

	// RefetchCooldown is the minimum time between JWKS fetches; default DefaultRefetchCooldown.
	RefetchCooldown time.Duration
	// HTTPClient fetches the JWKS; default a client with a 5s timeout.
	HTTPClient *http.Client `env:",noinit"`
	// Logger receives JWKS events and rejection reasons; default slog.Default().
	Logger *slog.Logger `env:",noinit"`
	// Now is the clock for token times and the cooldown; default time.Now (tests fix it).
	Now func() time.Time
}

// Validate reports settings that cannot work, naming their variables; a
// program calls it once at start-up.
func (c Config) Validate() error {
	if c.RefreshInterval < 0 || c.ClockSkew < 0 || c.MaxTokenLifetime < 0 || c.RefetchCooldown < 0 {
		return errors.New("OIDC_JWKS_REFRESH_INTERVAL, OIDC_CLOCK_SKEW and OIDC_MAX_TOKEN_LIFETIME must not be negative")
	}
	if c.TokenCacheSize < 0 {
		return errors.New("OIDC_TOKEN_CACHE_SIZE must not be negative")
	}
	_, err := c.withDefaults()
	return err
}

// withDefaults returns c with every unset field filled in, or an error when
// c cannot work.
func (c Config) withDefaults() (Config, error) {
	if err := checkURL("OIDC_ISSUER_URL", c.IssuerURL); err != nil {
		return c, err
	}
	if c.JWKSURL == "" {
		c.JWKSURL = strings.TrimSuffix(c.IssuerURL, "/") + JWKSPath
	}
	if err := checkURL("OIDC_JWKS_URL", c.JWKSURL); err != nil {
		return c, err
	}
	if c.Audience == "" {
		c.Audience = DefaultAudience
	}
	if c.RefreshInterval < 0 || c.ClockSkew < 0 || c.MaxTokenLifetime < 0 || c.RefetchCooldown < 0 {
		return c, errors.New("auth: durations must not be negative")
	}
	c.RefreshInterval = orDefault(c.RefreshInterval, DefaultRefreshInterval)
	c.ClockSkew = orDefault(c.ClockSkew, DefaultClockSkew)
	c.MaxTokenLifetime = orDefault(c.MaxTokenLifetime, DefaultMaxTokenLifetime)
	c.RefetchCooldown = orDefault(c.RefetchCooldown, DefaultRefetchCooldown)
	if c.RefreshInterval < c.RefetchCooldown {
		return c, fmt.Errorf("auth: OIDC_JWKS_REFRESH_INTERVAL %s is shorter than the refetch cooldown %s", c.RefreshInterval, c.RefetchCooldown)
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 5 * time.Second}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}

// orDefault returns d, or def when d is zero.
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func checkURL(name, raw string) error {
	if raw == "" {
		return fmt.Errorf("auth: %s is empty", name)
	}
	if _, err := url.Parse(raw); err != nil {
		return fmt.Errorf("auth: parse %s: %w", name, err)
	}
	if !program.IsHTTPURL(raw) {
		return fmt.Errorf("auth: %s %q must be an absolute http(s) URL", name, raw)
	}
	return nil
}
