package devidp

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
)

// signingKey signs the realm's tokens and publishes its public half.
type signingKey struct {
	alg    jose.SignatureAlgorithm
	public jose.JSONWebKey // with kid, alg and use "sig"
	signer jose.Signer
}

// newSigningKey wraps k (RSA of at least 2048 bits, or ECDSA P-256), or a
// fresh RSA 2048 key when k is nil. The key id is the RFC 7638 thumbprint.
func newSigningKey(k crypto.Signer) (*signingKey, error) {
	if k == nil {
		rk, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, fmt.Errorf("generate RSA key: %w", err)
		}
		k = rk
	}
	alg, err := algorithmOf(k)
	if err != nil {
		return nil, err
	}
	public := jose.JSONWebKey{Key: k.Public(), Algorithm: string(alg), Use: "sig"}
	thumb, err := public.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("key thumbprint: %w", err)
	}
	public.KeyID = base64.RawURLEncoding.EncodeToString(thumb)
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: k, KeyID: public.KeyID}},
		(&jose.SignerOptions{}).WithType("JWT"),
	)
	if err != nil {
		return nil, fmt.Errorf("build signer: %w", err)
	}
	return &signingKey{alg: alg, public: public, signer: signer}, nil
}

// algorithmOf picks the JWS algorithm of k.
func algorithmOf(k crypto.Signer) (jose.SignatureAlgorithm, error) {
	switch key := k.(type) {
	case *rsa.PrivateKey:
		if key.N.BitLen() < 2048 {
			return "", errors.New("the RSA key must have at least 2048 bits")
		}
		return jose.RS256, nil
	case *ecdsa.PrivateKey:
		if key.Curve != elliptic.P256() {
			return "", errors.New("the ECDSA key must use curve P-256")
		}
		return jose.ES256, nil
	}
	return "", fmt.Errorf("unsupported signing key type %T (want *rsa.PrivateKey or *ecdsa.PrivateKey)", k)
}

// sign returns the compact JWS of claims.
func (k *signingKey) sign(claims map[string]any) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("encode claims: %w", err)
	}
	jws, err := k.signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return jws.CompactSerialize()
}
