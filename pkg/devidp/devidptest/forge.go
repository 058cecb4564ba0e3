package devidptest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"maps"
	"math/big"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

// SignRaw signs claims with the identity provider's real key. The protected
// header starts as {alg, kid, typ: "JWT"}; entries of header replace or add
// members, and a nil value removes one (alg cannot be removed, only changed).
func (p *IdP) SignRaw(tb testing.TB, claims, header map[string]any) string {
	tb.Helper()
	key, kid, alg := p.signer()
	h := mergeHeader(map[string]any{"kid": kid, "typ": "JWT"}, header)
	opts := &jose.SignerOptions{}
	for k, v := range h {
		opts.WithHeader(jose.HeaderKey(k), v)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: key}, opts)
	if err != nil {
		tb.Fatalf("devidptest: signer: %v", err)
	}
	jws, err := signer.Sign(mustJSON(tb, claims))
	if err != nil {
		tb.Fatalf("devidptest: sign: %v", err)
	}
	tok, err := jws.CompactSerialize()
	if err != nil {
		tb.Fatalf("devidptest: serialize: %v", err)
	}
	return tok
}

// SignJSON signs the exact header and payload bytes with the identity
// provider's real key, under the algorithm of that key whatever the header
// says, so tests can forge what no encoder writes: duplicate members,
// escaped names, odd whitespace, strings where numbers belong.
func (p *IdP) SignJSON(tb testing.TB, header, payload []byte) string {
	tb.Helper()
	key, _, _ := p.signer()
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(header) + "." + enc.EncodeToString(payload)
	digest := sha256.Sum256([]byte(input))
	var sig []byte
	var err error
	switch k := key.(type) {
	case *rsa.PrivateKey:
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, digest[:])
	case *ecdsa.PrivateKey:
		var r, s *big.Int
		if r, s, err = ecdsa.Sign(rand.Reader, k, digest[:]); err == nil {
			sig = append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
		}
	default:
		tb.Fatalf("devidptest: cannot sign with %T", key)
	}
	if err != nil {
		tb.Fatalf("devidptest: sign: %v", err)
	}
	return input + "." + enc.EncodeToString(sig)
}

// PublicKeyPEM returns the identity provider's public key as PKIX PEM, the
// bytes an attacker would try as an HMAC secret.
func (p *IdP) PublicKeyPEM(tb testing.TB) []byte {
	tb.Helper()
	key, _, _ := p.signer()
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		tb.Fatalf("devidptest: marshal public key: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// Unsigned returns an "alg": "none" token of claims with an empty signature;
// header entries are merged as in SignRaw.
func Unsigned(tb testing.TB, claims, header map[string]any) string {
	tb.Helper()
	return compact(tb, mergeHeader(map[string]any{"alg": "none", "typ": "JWT"}, header), claims, nil)
}

// SignHS256 returns claims signed with HMAC-SHA256 under secret; header
// entries are merged as in SignRaw.
func SignHS256(tb testing.TB, claims, header map[string]any, secret []byte) string {
	tb.Helper()
	return compact(tb, mergeHeader(map[string]any{"alg": "HS256", "typ": "JWT"}, header), claims, func(input []byte) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write(input)
		return m.Sum(nil)
	})
}

// compact assembles a compact JWS by hand, so tests can build what go-jose
// refuses to sign.
func compact(tb testing.TB, header, claims map[string]any, sign func([]byte) []byte) string {
	tb.Helper()
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(mustJSON(tb, header)) + "." + enc.EncodeToString(mustJSON(tb, claims))
	var sig []byte
	if sign != nil {
		sig = sign([]byte(input))
	}
	return input + "." + enc.EncodeToString(sig)
}

// mergeHeader applies overrides to base; a nil override removes the member.
func mergeHeader(base, overrides map[string]any) map[string]any {
	h := maps.Clone(base)
	for k, v := range overrides {
		if v == nil {
			delete(h, k)
			continue
		}
		h[k] = v
	}
	return h
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("devidptest: encode: %v", err)
	}
	return b
}
