package auth

import (
	"context"
	"encoding/base64"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
)

// Verifier checks access tokens issued by one identity provider for one audience.
type Verifier struct {
	cfg    Config
	keys   *keySet
	oidc   *oidc.IDTokenVerifier
	logger *slog.Logger
}

// NewVerifier builds a Verifier from cfg without contacting the identity
// provider: the JWKS is fetched by Run or on first use, so services may
// start first.
func NewVerifier(cfg Config) (*Verifier, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	keys := newKeySet(cfg)
	algs := make([]string, len(acceptedAlgs))
	for i, a := range acceptedAlgs {
		algs[i] = string(a)
	}
	ov := oidc.NewVerifier(cfg.IssuerURL, keys, &oidc.Config{
		ClientID:             cfg.Audience,
		SupportedSigningAlgs: algs,
		// exp, nbf and iat are checked by checkClaims, with one clock skew
		// and strict types; go-oidc's own check tolerates 5 minutes on nbf.
		SkipExpiryCheck: true,
	})
	return &Verifier{cfg: cfg, keys: keys, oidc: ov, logger: cfg.Logger}, nil
}

// Run keeps the signing keys fresh until ctx is done: it fetches the JWKS at
// once, then every RefreshInterval (or the provider's shorter Cache-Control
// max-age, never more often than the refetch cooldown), and sooner after a
// failure. A fetch that no longer lists a key drops it; a failed one keeps
// the keys held. Every program runs it beside its server.
func (v *Verifier) Run(ctx context.Context) {
	v.keys.run(ctx)
}

// Ping reports whether tokens can be verified; it backs /readyz. It returns
// nil while the last JWKS fetch succeeded, a *KeysError with Stale set while
// the keys held outlive a failed fetch (degraded: tokens still verify), and a
// *KeysError when no key set was ever fetched (it then tries once more,
// within the refetch cooldown).
func (v *Verifier) Ping(ctx context.Context) error {
	return v.keys.status(ctx)
}

// HoldsKey reports whether a key of id (a kid, Claims.KeyID) is among the
// signing keys held.
func (v *Verifier) HoldsKey(id string) bool {
	return v.keys.held.Load().has(id)
}

// HoldsKeyOf reports whether the very key that verified c (its kid and its
// thumbprint) is still among the signing keys held: a token of a key the
// provider stopped announcing, or replaced under the same kid, is no longer
// valid, even where its claims were cached.
func (v *Verifier) HoldsKeyOf(c *Claims) bool {
	return v.keys.held.Load().holds(c.KeyID, c.keyThumb)
}

// HoldsKeyFor reports whether r carries one well-formed bearer token (shape,
// size, RS256 or ES256) whose header names a key held, so that verifying it
// costs a signature check but never a request to the identity provider.
func (v *Verifier) HoldsKeyFor(r *http.Request) bool {
	return v.HoldsKeyForHeader(r.Header.Values("Authorization"))
}

// HoldsKeyForHeader is HoldsKeyFor for a request whose Authorization header
// values are authorization.
func (v *Verifier) HoldsKeyForHeader(values []string) bool {
	if len(values) != 1 || len(values[0]) > maxAuthorizationBytes {
		return false
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(values[0]), " ")
	token = strings.TrimLeft(token, " ")
	if !strings.EqualFold(scheme, "Bearer") || !isB64Token(token) {
		return false
	}
	hdr, reason := precheck(token)
	return reason == "" && v.keys.held.Load().fits(hdr.Kid, hdr.Alg)
}

// Verify checks rawToken and returns its claims. Errors are *problem.Error:
// 401 with an RFC 6750 challenge for any unacceptable token, 503 when the
// signing keys cannot be fetched.
func (v *Verifier) Verify(ctx context.Context, rawToken string) (*Claims, error) {
	if _, reason := precheck(rawToken); reason != "" {
		return nil, v.reject(ctx, reason, nil)
	}
	n := &note{}
	_, err := v.oidc.Verify(withNote(ctx, n), rawToken)
	switch {
	case n.fetchErr != nil:
		v.logger.WarnContext(ctx, "token not checked: signing keys unavailable", "err", n.fetchErr)
		return nil, errKeysUnavailable(n.fetchErr, v.cfg.RefetchCooldown)
	case n.unknownKey:
		return nil, v.reject(ctx, "the token is signed with an unknown key", err)
	case n.payload == nil:
		return nil, v.reject(ctx, "the token signature is invalid", err)
	}
	claims, reason := checkClaims(n.payload, v.cfg)
	if reason == "" && err != nil {
		reason = "the token claims are malformed"
	}
	if reason != "" {
		return nil, v.reject(ctx, reason, err)
	}
	claims.KeyID, claims.keyThumb = n.key.id, n.key.thumb
	return claims, nil
}

// jwsHeader is what precheck reads of a token's protected header.
type jwsHeader struct {
	Alg string
	Kid string
}

// field is payload.field for the header: only "alg" and "kid", exactly.
func (h *jwsHeader) field(name string) any {
	switch name {
	case "alg":
		return &h.Alg
	case "kid":
		return &h.Kid
	}
	return nil
}

// precheck returns the header of rawToken, or why it cannot be an acceptable
// compact JWS: the wrong shape, size or alphabet, a header that is not one
// JSON object with distinct members, an algorithm other than RS256/ES256, or
// no kid. It runs before any cryptography.
func precheck(raw string) (jwsHeader, string) {
	const notJWT = "the token is not a JWT"
	var hdr jwsHeader
	switch {
	case raw == "":
		return hdr, "the token is empty"
	case len(raw) > MaxTokenBytes:
		return hdr, "the token is too long"
	case strings.Count(raw, ".") != 2 || !isCompactJWS(raw):
		return hdr, notJWT
	}
	seg, _, _ := strings.Cut(raw, ".")
	data, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil || !decodeExact(data, hdr.field) {
		return hdr, notJWT
	}
	if !slices.Contains(acceptedAlgs, jose.SignatureAlgorithm(hdr.Alg)) {
		return hdr, "the token must be signed with RS256 or ES256"
	}
	if hdr.Kid == "" {
		return hdr, "the token names no signing key (kid)"
	}
	return hdr, ""
}

// isCompactJWS reports whether s holds only the base64url alphabet and dots,
// so that no decoder skips a character the signature did not cover.
func isCompactJWS(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// reject logs why a token was refused (never the token) and returns the 401.
func (v *Verifier) reject(ctx context.Context, desc string, cause error) error {
	v.logger.DebugContext(ctx, "bearer token rejected", "reason", desc, "err", cause)
	return errInvalidToken(desc, cause)
}
