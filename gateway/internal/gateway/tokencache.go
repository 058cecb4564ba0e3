package gateway

import (
	"context"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/municipal-apis/platform/pkg/auth"
)

// tokenCache remembers the claims of recently verified Authorization
// headers, so that a client reusing its token (the normal case) costs one
// signature check per token instead of one per request. Only verified
// tokens are stored, keyed by the whole header itself (not a hash of it), so
// a forged or different token can never hit the cache, and a hit costs a map
// lookup: no cryptographic hash, no allocation. Only a header of the plain
// form "Bearer <token>" is stored, so an entry is the size of its token,
// which the identity provider minted: padding a valid token with spaces
// cannot make a client's entries any larger. An entry serves until its token expires or its
// signing key leaves the identity provider's JWKS, whichever comes first.
// The cache is a bounded LRU: when full, the least recently used token goes,
// so one client minting tokens cannot evict everyone else's.
type tokenCache struct {
	verifier authenticator
	now      func() time.Time
	entries  *lru.Cache[string, *auth.Claims] // by Authorization header; nil when off
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
		if c.entries, err = lru.New[string, *auth.Claims](maxEntries); err != nil {
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
	if c.entries == nil || len(authorization) != 1 {
		return nil, false
	}
	// The lookup reads the header in place: neither Get nor Remove keeps
	// the key they are given.
	key := b2s(authorization[0])
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
	if c.entries != nil && len(authorization) == 1 && plainBearer(authorization[0]) {
		c.entries.Add(string(authorization[0]), claims) // a copy: the request's bytes are reused
	}
	return claims, nil
}

// HoldsKeyFor reports whether verifying the token of authorization would
// cost a signature check but no request to the identity provider
// (auth.Verifier.HoldsKeyFor).
func (c *tokenCache) HoldsKeyFor(authorization [][]byte) bool {
	return c.verifier.HoldsKeyForHeader(headerStrings(authorization))
}

// plainBearer reports whether header, which the verifier accepted, is
// "Bearer", one space and the token, with no other space around or between:
// the only form the cache stores, so that an entry is no larger than its
// token. The verifier also accepts padded forms, which are verified each
// time.
func plainBearer(header []byte) bool {
	const prefix = len("Bearer ")
	if len(header) <= prefix || header[prefix-1] != ' ' || header[prefix] == ' ' {
		return false
	}
	if c := header[0]; c != 'B' && c != 'b' {
		return false
	}
	switch c := header[len(header)-1]; {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
	case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/', c == '=':
	default:
		return false
	}
	return true
}

// headerStrings copies header values into strings.
func headerStrings(values [][]byte) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}
