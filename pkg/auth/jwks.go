package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	jose "github.com/go-jose/go-jose/v4"
)

// maxJWKSBytes bounds the JWKS document read from the identity provider.
const maxJWKSBytes = 1 << 20

// fetchJWKS downloads the key set at url and keeps the public signing keys
// the verifier can use.
func fetchJWKS(ctx context.Context, client *http.Client, url string) ([]jose.JSONWebKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("build JWKS request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("get JWKS: unexpected status %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read JWKS: %w", err)
	}
	if len(body) > maxJWKSBytes {
		return nil, fmt.Errorf("read JWKS: larger than %d bytes", maxJWKSBytes)
	}
	return parseJWKS(body)
}

// parseJWKS decodes a JWKS document into its usable public signing keys,
// skipping encryption keys and keys it does not understand as RFC 7517 §5 asks.
func parseJWKS(body []byte) ([]jose.JSONWebKey, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("decode JWKS: %w", err)
	}
	keys := make([]jose.JSONWebKey, 0, len(doc.Keys))
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
		if k.Valid() {
			keys = append(keys, k)
		}
	}
	return keys, nil
}
