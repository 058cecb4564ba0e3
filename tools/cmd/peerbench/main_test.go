package main

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
)

func TestJWK2PEMWritesTheRSAKeyOfTheSet(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	jwks := `{"keys":[{"kty":"EC","crv":"P-256"},{"kty":"RSA","n":"` + b64(key.N.Bytes()) + `","e":"` +
		b64(big.NewInt(int64(key.E)).Bytes()) + `"}]}`
	var out bytes.Buffer
	if err := run([]string{"jwk2pem"}, strings.NewReader(jwks), &out); err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(out.Bytes())
	if block == nil {
		t.Fatalf("no PEM block in %q", out.String())
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !key.PublicKey.Equal(pub) {
		t.Fatal("the PEM key is not the JWKS's RSA key")
	}
	if err := run([]string{"jwk2pem"}, strings.NewReader(`{"keys":[]}`), &out); err == nil {
		t.Fatal("an empty set gave a key")
	}
}
