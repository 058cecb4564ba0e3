package gateway

import (
	"crypto/sha256"
	"net/http"
	"sync"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
)

// tokenCache remembers the claims of recently verified Authorization
// headers until their token expires, so that a client reusing its token
// (the normal case) costs one RSA verification per token instead of one
// per request. Only verified tokens are stored, keyed by a hash of the
// whole header, so a forged token can never hit the cache.
type tokenCache struct {
	verifier authenticator
	max      int
	now      func() time.Time

	mu      sync.RWMutex
	entries map[[sha256.Size]byte]*auth.Claims
}

// authenticator verifies the bearer token of a request; *auth.Verifier is one.
type authenticator interface {
	Authenticate(r *http.Request) (*auth.Claims, error)
}

// newTokenCache wraps verifier with a cache of at most maxEntries tokens; 0 turns it off.
func newTokenCache(verifier authenticator, maxEntries int) *tokenCache {
	return &tokenCache{verifier: verifier, max: maxEntries, now: time.Now, entries: map[[sha256.Size]byte]*auth.Claims{}}
}

// Cached returns the claims of r's bearer token when the same header was
// verified before and its token has not expired; it costs no cryptography.
func (c *tokenCache) Cached(r *http.Request) (*auth.Claims, bool) {
	key, ok := c.key(r)
	if !ok {
		return nil, false
	}
	c.mu.RLock()
	claims, ok := c.entries[key]
	c.mu.RUnlock()
	return claims, ok && c.now().Before(claims.Expiry)
}

// Authenticate verifies r's bearer token and remembers the claims.
func (c *tokenCache) Authenticate(r *http.Request) (*auth.Claims, error) {
	claims, err := c.verifier.Authenticate(r)
	if err != nil {
		return nil, err
	}
	if key, ok := c.key(r); ok {
		c.store(key, claims)
	}
	return claims, nil
}

// key hashes r's single Authorization header; requests with none or several
// are never cached.
func (c *tokenCache) key(r *http.Request) ([sha256.Size]byte, bool) {
	values := r.Header.Values("Authorization")
	if c.max == 0 || len(values) != 1 {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256([]byte(values[0])), true
}

// store adds claims, first dropping expired entries when the cache is full,
// and everything when that was not enough.
func (c *tokenCache) store(key [sha256.Size]byte, claims *auth.Claims) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		now := c.now()
		for k, v := range c.entries {
			if !now.Before(v.Expiry) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= c.max {
			clear(c.entries)
		}
	}
	c.entries[key] = claims
}
