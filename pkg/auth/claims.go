package auth

import (
	"context"
	"slices"
	"time"
)

// Claims is what a verified access token says about its caller.
type Claims struct {
	Subject           string    // sub
	ClientID          string    // azp: the OAuth client that obtained the token
	Department        string    // department, set per client by the identity provider
	Scopes            []string  // the space-separated scope claim, split
	Name              string    // name, on user tokens
	PreferredUsername string    // preferred_username
	TokenID           string    // jti
	Expiry            time.Time // exp
	// KeyID is the kid of the signing key that verified the token;
	// Verifier.HoldsKeyOf tells whether that key is still trusted.
	KeyID string
	// keyThumb is the RFC 7638 thumbprint of that key, which a provider
	// may replace under the same kid.
	keyThumb string
}

// HasScope reports whether the token grants scope.
func (c *Claims) HasScope(scope string) bool {
	return c != nil && slices.Contains(c.Scopes, scope)
}

// DisplayName names the caller for audit fields such as a Servico's autor:
// the name claim, else preferred_username, else the client id.
func (c *Claims) DisplayName() string {
	switch {
	case c.Name != "":
		return c.Name
	case c.PreferredUsername != "":
		return c.PreferredUsername
	}
	return c.ClientID
}

type claimsKey struct{}

// WithClaims returns a copy of ctx that carries c.
func WithClaims(ctx context.Context, c *Claims) context.Context {
	return context.WithValue(ctx, claimsKey{}, c)
}

// ClaimsFrom returns the claims stored in ctx by the authentication middleware.
func ClaimsFrom(ctx context.Context) (*Claims, bool) {
	c, ok := ctx.Value(claimsKey{}).(*Claims)
	return c, ok && c != nil
}
