package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of Config and RetryPolicy.
const (
	DefaultMaxAttempts      = 4
	DefaultBaseDelay        = 200 * time.Millisecond
	DefaultMaxDelay         = 10 * time.Second
	DefaultMaxWait          = time.Minute
	DefaultTimeout          = 30 * time.Second
	DefaultMaxResponseBytes = 32 << 20
)

// RetryPolicy bounds how often and how long a request is retried.
type RetryPolicy struct {
	// MaxAttempts counts every attempt, the first included; 1 disables
	// retries. Default DefaultMaxAttempts.
	MaxAttempts int
	// BaseDelay is the backoff ceiling of the first retry; the ceiling
	// doubles with every further retry. Default DefaultBaseDelay.
	BaseDelay time.Duration
	// MaxDelay caps the backoff ceiling. Default DefaultMaxDelay.
	MaxDelay time.Duration
	// MaxWait is the longest server-requested wait (Retry-After,
	// X-RateLimit-Reset) the client accepts; an answer asking for more is
	// returned as an error at once. Default DefaultMaxWait.
	MaxWait time.Duration
}

// Config configures a Client. TokenURL, ClientID, ClientSecret and at least
// one base URL are required.
type Config struct {
	// SearchBaseURL is {search_base_url}, e.g. http://localhost:8080/search.
	SearchBaseURL string
	// JobsBaseURL is {go_base_url}, e.g. http://localhost:8080/go/v1.
	JobsBaseURL string
	// TokenURL is the identity provider's token endpoint:
	// {auth_url}/auth/realms/<realm>/protocol/openid-connect/token (see TokenURL).
	TokenURL string
	// ClientID and ClientSecret are the client credentials.
	ClientID     string
	ClientSecret string
	// Scopes, when set, narrow the scopes requested with the token.
	Scopes []string
	// HTTPClient sends the API and token requests; default a client with a
	// DefaultTimeout timeout.
	HTTPClient *http.Client
	// Retry bounds the retries of 429 and 503 answers.
	Retry RetryPolicy
	// DisableIdempotencyKeys stops the client from adding an Idempotency-Key
	// to POST requests, which then are never retried.
	DisableIdempotencyKeys bool
	// MaxResponseBytes bounds a response body read into memory; default
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// UserAgent is sent with every API request; default "municipal-client".
	UserAgent string
	// OnRetry, when set, is called before every wait for a retry.
	OnRetry func(Retry)
	// Now, Sleep and Jitter replace the clock, the wait between attempts and
	// the random source of full jitter (a duration in [0, ceiling)); tests set
	// them to observe and fix delays.
	Now    func() time.Time
	Sleep  func(ctx context.Context, d time.Duration) error
	Jitter func(ceiling time.Duration) time.Duration
}

// Retry describes one retry about to happen, for Config.OnRetry.
type Retry struct {
	Method  string
	URL     string
	Attempt int           // the attempt that failed, from 1
	Status  int           // its status, 0 after a transport error
	Err     error         // why it failed
	Delay   time.Duration // the wait before the next attempt
}

// TokenURL returns the client-credentials endpoint of realm at authURL, as
// the API document writes it.
func TokenURL(authURL, realm string) string {
	return strings.TrimSuffix(authURL, "/") + "/auth/realms/" + url.PathEscape(realm) + "/protocol/openid-connect/token"
}

// withDefaults returns c with every unset field filled in, or the first
// reason c cannot work.
func (c Config) withDefaults() (Config, error) {
	if c.SearchBaseURL == "" && c.JobsBaseURL == "" {
		return c, errors.New("client: set SearchBaseURL, JobsBaseURL or both")
	}
	urls := []struct{ name, raw string }{{"SearchBaseURL", c.SearchBaseURL}, {"JobsBaseURL", c.JobsBaseURL}, {"TokenURL", c.TokenURL}}
	for _, u := range urls {
		if u.raw == "" && u.name != "TokenURL" {
			continue
		}
		if err := checkURL(u.name, u.raw); err != nil {
			return c, err
		}
	}
	if c.ClientID == "" || c.ClientSecret == "" {
		return c, errors.New("client: ClientID and ClientSecret are required")
	}
	c.Retry = c.Retry.withDefaults()
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: DefaultTimeout}
	}
	c.HTTPClient = withoutRedirects(c.HTTPClient)
	if c.MaxResponseBytes <= 0 {
		c.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if c.UserAgent == "" {
		c.UserAgent = "municipal-client"
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sleep == nil {
		c.Sleep = sleep
	}
	if c.Jitter == nil {
		c.Jitter = fullJitter
	}
	return c, nil
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxWait <= 0 {
		p.MaxWait = DefaultMaxWait
	}
	return p
}

func checkURL(name, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("client: parse %s: %w", name, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("client: %s %q must be an absolute http(s) URL without query or fragment", name, raw)
	}
	return nil
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fullJitter returns a uniformly random duration in [0, ceiling).
func fullJitter(ceiling time.Duration) time.Duration {
	if ceiling <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(ceiling)))
}
