package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
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
		return nil, &tokenError{fmt.Errorf("get an access token for %s: %w", c.conf.ClientID, err)}
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

// tokenError is a failure to get an access token. Only a failure to reach
// the identity provider may pass on a retry: its refusal of the client, or
// an answer that is no token (a web page, a redirect), would come again,
// and each retry would send the client's secret again.
type tokenError struct{ err error }

// Error quotes the identity provider within bounds (see maxMessageRunes):
// oauth2 puts its whole answer in the message.
func (e *tokenError) Error() string { return clip(e.err.Error(), maxMessageRunes) }
func (e *tokenError) Unwrap() error { return e.err }

// transient reports whether the identity provider was not reached: the
// request failed before an answer (a refused connection, a timeout).
func (e *tokenError) transient() bool {
	var unreached *url.Error
	return errors.As(e.err, &unreached)
}

// RedirectError is a redirect the client did not follow, from the API or
// the identity provider. The client follows none, so that a token, the
// client's secret or a request body never goes anywhere but the configured
// URLs (another host, another port, plain http after https); such an
// answer is not retried.
type RedirectError struct {
	Status   int    // the answer's status, such as 302 or 307
	Location string // where it pointed, resolved against the request's URL
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the server answered %d with a redirect to %q, which the client does not follow: configure the URL that answers itself", e.Status, e.Location)
}

// withoutRedirects returns a copy of hc that follows no redirect: a 3xx
// answer ends the request with a *RedirectError. The copy shares hc's
// transport and its connections; hc itself is left as it was.
func withoutRedirects(hc *http.Client) *http.Client {
	cp := *hc
	cp.CheckRedirect = func(next *http.Request, _ []*http.Request) error {
		status := 0
		if next.Response != nil {
			status = next.Response.StatusCode
		}
		return &RedirectError{Status: status, Location: next.URL.String()}
	}
	return &cp
}
