package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

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
// provider: the JWKS is fetched on first use, so services may start first.
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
	leeway, now := cfg.Leeway, cfg.Now
	ov := oidc.NewVerifier(cfg.IssuerURL, keys, &oidc.Config{
		ClientID:             cfg.Audience,
		SupportedSigningAlgs: algs,
		// go-oidc has no expiry leeway; a clock running late by the leeway gives one.
		Now: func() time.Time { return now().Add(-leeway) },
	})
	return &Verifier{cfg: cfg, keys: keys, oidc: ov, logger: cfg.Logger}, nil
}

// Ping fetches the JWKS (at most once per refetch cooldown) and reports
// whether it holds a usable signing key; it backs /readyz.
func (v *Verifier) Ping(ctx context.Context) error {
	if err := v.keys.ping(ctx); err != nil {
		return fmt.Errorf("identity provider keys: %w", err)
	}
	return nil
}

// payload holds the claims Verify reads beyond what go-oidc checks.
type payload struct {
	Issuer            string          `json:"iss"`
	Audience          json.RawMessage `json:"aud"`
	Expiry            *json.Number    `json:"exp"`
	Subject           string          `json:"sub"`
	Type              string          `json:"typ"`
	AuthorizedParty   string          `json:"azp"`
	Scope             string          `json:"scope"`
	Department        string          `json:"department"`
	Name              string          `json:"name"`
	PreferredUsername string          `json:"preferred_username"`
	TokenID           string          `json:"jti"`
}

// Verify checks rawToken and returns its claims. Errors are *problem.Error:
// 401 with an RFC 6750 challenge for any unacceptable token, 503 when the
// signing keys cannot be fetched.
func (v *Verifier) Verify(ctx context.Context, rawToken string) (*Claims, error) {
	if reason := precheck(rawToken); reason != "" {
		return nil, v.reject(ctx, reason, nil)
	}
	n := &note{}
	tok, err := v.oidc.Verify(withNote(ctx, n), rawToken)
	if err != nil {
		return nil, v.explain(ctx, err, n)
	}
	var p payload
	if err := tok.Claims(&p); err != nil {
		return nil, v.reject(ctx, "the token claims are malformed", err)
	}
	switch {
	case p.Expiry == nil:
		return nil, v.reject(ctx, "the token has no expiry", nil)
	case p.Type != "Bearer":
		return nil, v.reject(ctx, "the token is not an access token", nil)
	case p.AuthorizedParty == "":
		return nil, v.reject(ctx, "the token names no client (azp)", nil)
	}
	return &Claims{
		Subject:           p.Subject,
		ClientID:          p.AuthorizedParty,
		Department:        p.Department,
		Scopes:            strings.Fields(p.Scope),
		Name:              p.Name,
		PreferredUsername: p.PreferredUsername,
		TokenID:           p.TokenID,
		Expiry:            tok.Expiry,
	}, nil
}

// precheck returns why rawToken cannot be an acceptable compact JWS (the
// wrong shape or size, or an algorithm other than RS256/ES256), or "" when it
// may be; it runs before any cryptography.
func precheck(raw string) string {
	const notJWT = "the token is not a JWT"
	switch {
	case raw == "":
		return "the token is empty"
	case len(raw) > MaxTokenBytes:
		return "the token is too long"
	case strings.Count(raw, ".") != 2:
		return notJWT
	}
	seg, _, _ := strings.Cut(raw, ".")
	data, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return notJWT
	}
	var hdr struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(data, &hdr) != nil {
		return notJWT
	}
	if !slices.Contains(acceptedAlgs, jose.SignatureAlgorithm(hdr.Alg)) {
		return "the token must be signed with RS256 or ES256"
	}
	return ""
}

// explain turns a go-oidc failure into the matching problem, using what the
// key set noted rather than go-oidc's error text.
func (v *Verifier) explain(ctx context.Context, err error, n *note) error {
	switch {
	case n.fetchErr != nil:
		v.logger.WarnContext(ctx, "token not checked: signing keys unavailable", "err", n.fetchErr)
		return errKeysUnavailable(n.fetchErr, v.cfg.RefetchCooldown)
	case n.unknownKey:
		return v.reject(ctx, "the token is signed with an unknown key", err)
	case n.payload == nil:
		return v.reject(ctx, "the token signature is invalid", err)
	}
	var p payload
	if jerr := json.Unmarshal(n.payload, &p); jerr != nil {
		return v.reject(ctx, "the token claims are malformed", err)
	}
	var expired *oidc.TokenExpiredError
	switch {
	case p.Issuer != v.cfg.IssuerURL:
		return v.reject(ctx, "the token was issued by another issuer", err)
	case !audienceHas(p.Audience, v.cfg.Audience):
		return v.reject(ctx, "the token is not meant for this audience", err)
	case p.Expiry == nil:
		return v.reject(ctx, "the token has no expiry", err)
	case errors.As(err, &expired):
		return v.reject(ctx, "the token has expired", err)
	}
	return v.reject(ctx, "the token is not valid yet or its claims are malformed", err)
}

// audienceHas reports whether the aud claim, a string or an array of
// strings, contains want.
func audienceHas(raw json.RawMessage, want string) bool {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one == want
	}
	var many []string
	return json.Unmarshal(raw, &many) == nil && slices.Contains(many, want)
}

// reject logs why a token was refused (never the token) and returns the 401.
func (v *Verifier) reject(ctx context.Context, desc string, cause error) error {
	v.logger.DebugContext(ctx, "bearer token rejected", "reason", desc, "err", cause)
	return errInvalidToken(desc, cause)
}
