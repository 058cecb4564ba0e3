package auth

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// maxJWKSBytes bounds the JWKS document read from the identity provider.
const maxJWKSBytes = 1 << 20

// Causes of a failed JWKS fetch, short codes safe to show in a probe body.
const (
	CauseUnreachable  = "unreachable"    // no connection, or it broke
	CauseTimeout      = "timeout"        // no answer in time
	CauseHTTPStatus   = "http_status"    // an answer other than 200
	CauseInvalidJWKS  = "invalid_jwks"   // not a JWKS document, or too large
	CauseNoSigningKey = "no_signing_key" // a JWKS without a usable RS256 or ES256 key
	// CauseIssuerMismatch: the provider's discovery document names another
	// issuer than the configured one (a trailing slash, localhost for
	// 127.0.0.1), so every token's iss differs from it.
	CauseIssuerMismatch = "issuer_mismatch"
)

// discoveredIssuer is the issuer the discovery document at issuer names
// (OpenID Connect Discovery 1.0, section 4), or "" when there is none to
// read: the configured issuer is what tokens carry, which a deployment
// need not reach (its JWKS URL may be an in-cluster address), so only a
// document that answers counts.
func discoveredIssuer(ctx context.Context, client *http.Client, issuer string) string {
	if issuer == "" {
		return ""
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(issuer, "/")+"/.well-known/openid-configuration", nil)
	if err != nil {
		return ""
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ""
	}
	var doc struct {
		Issuer string `json:"issuer"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJWKSBytes)).Decode(&doc); err != nil {
		return ""
	}
	return doc.Issuer
}

// fetchError is a failed JWKS fetch with its cause code.
type fetchError struct {
	cause string
	err   error
}

func (e *fetchError) Error() string { return e.err.Error() }
func (e *fetchError) Unwrap() error { return e.err }

// causeOf returns the cause code of a fetch error.
func causeOf(err error) string {
	var fe *fetchError
	if errors.As(err, &fe) {
		return fe.cause
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return CauseTimeout
	}
	return CauseUnreachable
}

// jwksDoc is a fetched key set and how long the provider lets it be cached.
type jwksDoc struct {
	keys      []heldKey
	maxAge    time.Duration // the response's Cache-Control max-age, when hasMaxAge
	hasMaxAge bool
}

// heldKey is a usable public signing key, its kid (which Claims.KeyID
// carries) and its RFC 7638 thumbprint: a key the provider replaces under
// the same kid is another key.
type heldKey struct {
	jwk   jose.JSONWebKey
	id    string
	thumb string
}

// fetchJWKS downloads the key set at url and keeps the public signing keys
// the verifier can use; a set without any is an error.
func fetchJWKS(ctx context.Context, client *http.Client, url string) (jwksDoc, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return jwksDoc{}, fmt.Errorf("build JWKS request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		cause := CauseUnreachable
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			cause = CauseTimeout
		}
		return jwksDoc{}, &fetchError{cause, fmt.Errorf("get JWKS: %w", err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return jwksDoc{}, &fetchError{CauseHTTPStatus, fmt.Errorf("get JWKS: unexpected status %s", resp.Status)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return jwksDoc{}, &fetchError{CauseUnreachable, fmt.Errorf("read JWKS: %w", err)}
	}
	if len(body) > maxJWKSBytes {
		return jwksDoc{}, &fetchError{CauseInvalidJWKS, fmt.Errorf("read JWKS: larger than %d bytes", maxJWKSBytes)}
	}
	keys, err := parseJWKS(body)
	if err != nil {
		return jwksDoc{}, &fetchError{CauseInvalidJWKS, err}
	}
	if len(keys) == 0 {
		return jwksDoc{}, &fetchError{CauseNoSigningKey, errors.New("the JWKS has no RS256 or ES256 signing key")}
	}
	age, ok := maxAge(resp.Header)
	return jwksDoc{keys: keys, maxAge: age, hasMaxAge: ok}, nil
}

// parseJWKS decodes a JWKS document into its usable public signing keys,
// skipping encryption keys and keys it does not understand as RFC 7517 §5 asks.
func parseJWKS(body []byte) ([]heldKey, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("decode JWKS: %w", err)
	}
	keys := make([]heldKey, 0, len(doc.Keys))
	for _, raw := range doc.Keys {
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(raw); err != nil {
			continue // a key type or algorithm this verifier does not understand
		}
		if k.Use == "enc" || (k.Algorithm != "" && !slices.Contains(acceptedAlgs, jose.SignatureAlgorithm(k.Algorithm))) {
			continue
		}
		if !k.IsPublic() {
			k = k.Public()
		}
		// A key without kid can verify no token: tokens must name their key.
		if k.KeyID == "" || !k.Valid() || !(keyFits(k, string(jose.RS256)) || keyFits(k, string(jose.ES256))) {
			continue
		}
		thumb, err := k.Thumbprint(crypto.SHA256)
		if err != nil {
			continue
		}
		keys = append(keys, heldKey{jwk: k, id: k.KeyID, thumb: string(thumb)})
	}
	return keys, nil
}

// maxAge reads the max-age directive of a Cache-Control header; ok is
// false when there is none or it does not parse.
func maxAge(h http.Header) (age time.Duration, ok bool) {
	for _, v := range h.Values("Cache-Control") {
		for dir := range strings.SplitSeq(v, ",") {
			name, val, found := strings.Cut(strings.TrimSpace(dir), "=")
			if !found || !strings.EqualFold(name, "max-age") {
				continue
			}
			secs, err := strconv.ParseInt(strings.Trim(val, `"`), 10, 64)
			if err != nil || secs < 0 {
				return 0, false
			}
			return time.Duration(min(secs, int64(24*time.Hour/time.Second))) * time.Second, true
		}
	}
	return 0, false
}
