package client

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// tokenCache holds the current access token and fetches a new one with the
// client-credentials flow when it is missing or about to expire (oauth2's
// expiry margin). Callers wait for one fetch at a time.
type tokenCache struct {
	conf *clientcredentials.Config
	http *http.Client

	mu  sync.Mutex
	tok *oauth2.Token
}

func newTokenCache(cfg Config) *tokenCache {
	return &tokenCache{
		conf: &clientcredentials.Config{
			ClientID:     cfg.ClientID,
			ClientSecret: cfg.ClientSecret,
			TokenURL:     cfg.TokenURL,
			Scopes:       cfg.Scopes,
			// The API document sends client_id and client_secret in the form body.
			AuthStyle: oauth2.AuthStyleInParams,
		},
		http: cfg.HTTPClient,
	}
}

// token returns a valid access token, fetching one under ctx when needed.
func (c *tokenCache) token(ctx context.Context) (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok.Valid() {
		return c.tok, nil
	}
	tok, err := c.conf.Token(context.WithValue(ctx, oauth2.HTTPClient, c.http))
	if err != nil {
		return nil, fmt.Errorf("get an access token for %s: %w", c.conf.ClientID, err)
	}
	c.tok = tok
	return tok, nil
}

// invalidate forgets tok when it is still the cached token, so that the
// next request fetches a new one; a token another goroutine has already
// replaced stays.
func (c *tokenCache) invalidate(tok *oauth2.Token) {
	if tok == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok == tok {
		c.tok = nil
	}
}
