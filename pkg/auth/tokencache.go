package auth

import (
	"context"
	"net/http"
	"time"
	"unsafe"

	lru "github.com/hashicorp/golang-lru/v2"
)

// TokenCache remembers the claims of recently verified Authorization
// headers, so that a client reusing its token (the normal case) costs one
// signature check per token instead of one per request. Only verified
// tokens are stored, keyed by the whole header itself (not a hash of it), so
// a forged or different token can never hit the cache, and a hit costs a map
// lookup: no cryptographic hash, no allocation. Only a header of the plain
// form "Bearer <token>" is stored, so an entry is the size of its token,
// which the identity provider minted: padding a valid token with spaces
// cannot make a client's entries any larger. An entry serves until its token expires or its
// signing key leaves the identity provider's JWKS (or is replaced there
// under the same kid), whichever comes first.
// The cache is a bounded LRU: when full, the least recently used token goes,
// so one client minting tokens cannot evict everyone else's.
type TokenCache struct {
	verifier HeaderVerifier
	now      func() time.Time
	entries  *lru.Cache[string, *Claims] // by Authorization header; nil when off
}

// HeaderVerifier verifies bearer tokens and knows which signing keys it
// holds; *Verifier is one.
type HeaderVerifier interface {
	AuthenticateHeader(ctx context.Context, authorization []string) (*Claims, error)
	HoldsKeyOf(c *Claims) bool
	HoldsKeyForHeader(authorization []string) bool
}

// NewTokenCache wraps verifier with a cache of at most maxEntries tokens; 0
// turns it off. now is the clock of token expiry; nil is time.Now.
func NewTokenCache(verifier HeaderVerifier, maxEntries int, now func() time.Time) (*TokenCache, error) {
	if now == nil {
		now = time.Now
	}
	c := &TokenCache{verifier: verifier, now: now}
	if maxEntries > 0 {
		var err error
		if c.entries, err = lru.New[string, *Claims](maxEntries); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Cached returns the claims of the bearer token of a request whose
// Authorization header values are authorization, when the same header was
// verified before, its token has not expired and its signing key is still
// held; it costs no cryptography and allocates nothing.
func (c *TokenCache) Cached(authorization [][]byte) (*Claims, bool) {
	if len(authorization) != 1 {
		return nil, false
	}
	// The lookup reads the header in place: neither Get nor Remove keeps
	// the key they are given.
	return c.cached(b2s(authorization[0]))
}

// cached returns the claims stored for the Authorization header, while
// its token has not expired and its signing key is still held.
func (c *TokenCache) cached(header string) (*Claims, bool) {
	if c.entries == nil {
		return nil, false
	}
	claims, ok := c.entries.Get(header)
	if !ok {
		return nil, false
	}
	if !c.now().Before(claims.Expiry) || !c.verifier.HoldsKeyOf(claims) {
		c.entries.Remove(header)
		return nil, false
	}
	return claims, true
}

// Authenticate returns the claims of r's bearer token, from the cache when
// its Authorization header was verified before (see Cached), else verified
// and remembered; Middleware and HTTPMiddleware call it.
func (c *TokenCache) Authenticate(r *http.Request) (*Claims, error) {
	authorization := r.Header.Values("Authorization")
	if len(authorization) == 1 {
		if claims, ok := c.cached(authorization[0]); ok {
			return claims, nil
		}
	}
	claims, err := c.verifier.AuthenticateHeader(r.Context(), authorization)
	if err == nil {
		c.remember(authorization, claims)
	}
	return claims, err
}

// AuthenticateHeader verifies the bearer token of a request whose
// Authorization header values are authorization, for a server that holds
// them as bytes (the gateway's), and remembers the claims.
func (c *TokenCache) AuthenticateHeader(ctx context.Context, authorization [][]byte) (*Claims, error) {
	values := headerStrings(authorization) // copies: the request's bytes are reused
	claims, err := c.verifier.AuthenticateHeader(ctx, values)
	if err != nil {
		return nil, err
	}
	c.remember(values, claims)
	return claims, nil
}

// remember stores the claims of a verified single Authorization header of
// the plain form.
func (c *TokenCache) remember(authorization []string, claims *Claims) {
	if c.entries != nil && len(authorization) == 1 && plainBearer(authorization[0]) {
		c.entries.Add(authorization[0], claims)
	}
}

// HoldsKeyFor reports whether verifying the token of authorization would
// cost a signature check but no request to the identity provider
// (Verifier.HoldsKeyFor).
func (c *TokenCache) HoldsKeyFor(authorization [][]byte) bool {
	return c.verifier.HoldsKeyForHeader(headerStrings(authorization))
}

// Len returns how many tokens the cache holds.
func (c *TokenCache) Len() int {
	if c.entries == nil {
		return 0
	}
	return c.entries.Len()
}

// plainBearer reports whether header, which the verifier accepted, is
// "Bearer", one space and the token, with no other space around or between:
// the only form the cache stores, so that an entry is no larger than its
// token. The verifier also accepts padded forms, which are verified each
// time.
func plainBearer(header string) bool {
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

// b2s reads b as a string without copying it, for a lookup that keeps
// nothing.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// headerStrings copies header values into strings.
func headerStrings(values [][]byte) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}
