package auth

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of Config.
const (
	// DefaultAudience is the audience every platform access token carries.
	DefaultAudience = "api-gateway"
	// DefaultLeeway tolerates this much clock skew when checking exp.
	DefaultLeeway = 30 * time.Second
	// DefaultRefetchCooldown is the shortest interval between two JWKS
	// fetches: long enough that forged key ids cannot flood the identity
	// provider, short enough that a rotated key is picked up within seconds.
	DefaultRefetchCooldown = 5 * time.Second
	// JWKSPath is Keycloak's JWKS path below the issuer URL; devidp serves the same.
	JWKSPath = "/protocol/openid-connect/certs"
	// MaxTokenBytes bounds the size of an accepted token.
	MaxTokenBytes = 8 << 10
)

// fetchTimeout bounds one JWKS fetch even when HTTPClient has no timeout.
const fetchTimeout = 10 * time.Second

// Config configures a Verifier. Only IssuerURL is required.
type Config struct {
	// IssuerURL is the exact "iss" of accepted tokens, e.g.
	// http://127.0.0.1:8090/auth/realms/municipal.
	IssuerURL string
	// JWKSURL is where the signing keys are fetched; it defaults to
	// IssuerURL + JWKSPath and may differ from it (an in-cluster address).
	JWKSURL string
	// Audience must be one of the token's "aud" values; default DefaultAudience.
	Audience string
	// Leeway is the clock skew tolerated on exp; default DefaultLeeway.
	Leeway time.Duration
	// RefetchCooldown is the minimum time between JWKS fetches; default DefaultRefetchCooldown.
	RefetchCooldown time.Duration
	// HTTPClient fetches the JWKS; default a client with a 5s timeout.
	HTTPClient *http.Client
	// Logger receives JWKS fetch events and rejection reasons; default slog.Default().
	Logger *slog.Logger
	// Now is the clock for expiry and cooldown checks; default time.Now (tests fix it).
	Now func() time.Time
}

// withDefaults returns c with every unset field filled in, or an error when
// c cannot work.
func (c Config) withDefaults() (Config, error) {
	if err := checkURL("IssuerURL", c.IssuerURL); err != nil {
		return c, err
	}
	if c.JWKSURL == "" {
		c.JWKSURL = strings.TrimSuffix(c.IssuerURL, "/") + JWKSPath
	}
	if err := checkURL("JWKSURL", c.JWKSURL); err != nil {
		return c, err
	}
	if c.Audience == "" {
		c.Audience = DefaultAudience
	}
	if c.Leeway == 0 {
		c.Leeway = DefaultLeeway
	}
	if c.RefetchCooldown == 0 {
		c.RefetchCooldown = DefaultRefetchCooldown
	}
	if c.Leeway < 0 || c.RefetchCooldown < 0 {
		return c, errors.New("auth: Leeway and RefetchCooldown must not be negative")
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

func checkURL(name, raw string) error {
	if raw == "" {
		return fmt.Errorf("auth: %s is empty", name)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("auth: parse %s: %w", name, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("auth: %s %q must be an absolute http(s) URL", name, raw)
	}
	return nil
}
