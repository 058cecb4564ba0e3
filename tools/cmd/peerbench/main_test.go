package main

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
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

func TestFastProxyForwardsBelowThePrefix(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization")+
			" ["+r.Header.Get("X-Forwarded-Host")+" "+r.Header.Get("X-Client-Id")+" "+r.Header.Get("X-Request-Id")+"]")
	}))
	t.Cleanup(up.Close)
	for _, headers := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := fastProxy(strings.TrimPrefix(up.URL, "http://"), headers)
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { _ = srv.Shutdown() })
		req, err := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/go/v1/api/v1/empregos?page=2", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer t")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		want, id := "GET /api/v1/empregos?page=2 Bearer t [  ]", ""
		if headers {
			want = "GET /api/v1/empregos?page=2 Bearer t [" + ln.Addr().String() + " jobs-admin " + benchRequestID + "]"
			id = benchRequestID
		}
		if resp.StatusCode != http.StatusOK || string(body) != want {
			t.Errorf("gateway headers %v: status %d, upstream saw %q, want %q", headers, resp.StatusCode, body, want)
		}
		if got := resp.Header.Get("X-Request-Id"); got != id {
			t.Errorf("gateway headers %v: X-Request-Id = %q, want %q", headers, got, id)
		}
	}
}
