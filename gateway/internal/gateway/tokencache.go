package gateway

import (
	"context"
	"crypto/sha256"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/municipal-apis/platform/pkg/auth"
)

// tokenCache remembers the claims of recently verified Authorization
// headers, so that a client reusing its token (the normal case) costs one
// signature check per token instead of one per request. Only verified
// tokens are stored, keyed by a hash of the whole header, so a forged token
// can never hit the cache. An entry serves until its token expires or its
// signing key leaves the identity provider's JWKS, whichever comes first.
// The cache is a bounded LRU: when full, the least recently used token goes,
// so one client minting tokens cannot evict everyone else's.
type tokenCache struct {
	verifier authenticator
	now      func() time.Time
	entries  *lru.Cache[[sha256.Size]byte, *auth.Claims] // nil when off
}

// authenticator verifies bearer tokens and knows which signing keys it
// holds; *auth.Verifier is one.
type authenticator interface {
	AuthenticateHeader(ctx context.Context, authorization []string) (*auth.Claims, error)
	HoldsKey(kid string) bool
	HoldsKeyForHeader(authorization []string) bool
}

// newTokenCache wraps verifier with a cache of at most maxEntries tokens; 0 turns it off.
func newTokenCache(verifier authenticator, maxEntries int) (*tokenCache, error) {
	c := &tokenCache{verifier: verifier, now: time.Now}
	if maxEntries > 0 {
		var err error
		if c.entries, err = lru.New[[sha256.Size]byte, *auth.Claims](maxEntries); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Cached returns the claims of the bearer token of a request whose
// Authorization header values are authorization, when the same header was
// verified before, its token has not expired and its signing key is still
// held; it costs no cryptography and allocates nothing.
func (c *tokenCache) Cached(authorization [][]byte) (*auth.Claims, bool) {
	key, ok := c.key(authorization)
	if !ok {
		return nil, false
	}
	claims, ok := c.entries.Get(key)
	if !ok {
		return nil, false
	}
	if !c.now().Before(claims.Expiry) || !c.verifier.HoldsKey(claims.KeyID) {
		c.entries.Remove(key)
		return nil, false
	}
	return claims, true
}

// Authenticate verifies the bearer token of authorization and remembers
// the claims.
func (c *tokenCache) Authenticate(ctx context.Context, authorization [][]byte) (*auth.Claims, error) {
	claims, err := c.verifier.AuthenticateHeader(ctx, headerStrings(authorization))
	if err != nil {
		return nil, err
	}
	if key, ok := c.key(authorization); ok {
		c.entries.Add(key, claims)
	}
	return claims, nil
}

// HoldsKeyFor reports whether verifying the token of authorization would
// cost a signature check but no request to the identity provider
// (auth.Verifier.HoldsKeyFor).
func (c *tokenCache) HoldsKeyFor(authorization [][]byte) bool {
	return c.verifier.HoldsKeyForHeader(headerStrings(authorization))
}

// key hashes a single Authorization header; requests with none or several
// are never cached.
func (c *tokenCache) key(authorization [][]byte) ([sha256.Size]byte, bool) {
	if c.entries == nil || len(authorization) != 1 {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(authorization[0]), true
}

// headerStrings copies header values into strings.
func headerStrings(values [][]byte) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}
