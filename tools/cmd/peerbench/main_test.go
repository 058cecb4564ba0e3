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
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
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

// paced sends every request of its rate with the header it is given, and
// counts a request's latency from when it was due: a target that answers
// one request in 20 ms over one connection, sent 100 a second, falls
// further behind with every request, and its latencies say so where a
// closed loop (wrk) would report 20 ms.
func TestPacedCountsLatencyFromWhenARequestWasDue(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	slow := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		s := slow
		mu.Unlock()
		if s {
			time.Sleep(20 * time.Millisecond)
		}
	}))
	t.Cleanup(srv.Close)
	field := func(out, name string) float64 {
		t.Helper()
		for kv := range strings.FieldsSeq(out) {
			if v, ok := strings.CutPrefix(kv, name+"="); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
		}
		t.Fatalf("no %s in %q", name, out)
		return 0
	}

	var out bytes.Buffer
	for _, args := range [][]string{{"0", "4", "1s"}, {"200", "-1", "1s"}, {"200", "4", "10ms"}, {"x", "4", "1s"}} {
		if err := run(append([]string{"paced", srv.URL}, args...), nil, &out); err == nil {
			t.Errorf("paced %v ran", args)
		}
	}
	if err := paced(srv.URL+"/x", 200, 4, time.Second, "Bearer paced", &out); err != nil {
		t.Fatal(err)
	}
	// A second of warm-up and a second measured, at 200 a second.
	mu.Lock()
	n, bad := len(seen), slices.IndexFunc(seen, func(s string) bool { return s != "Bearer paced" })
	seen, slow = nil, true
	mu.Unlock()
	if n != 400 || bad >= 0 || field(out.String(), "requests") != 200 || field(out.String(), "failed") != 0 {
		t.Fatalf("fast target: the server saw %d requests (one without the header at %d), paced said %q", n, bad, out.String())
	}

	out.Reset()
	if err := paced(srv.URL+"/x", 100, 1, time.Second, "Bearer paced", &out); err != nil {
		t.Fatal(err)
	}
	// Over one connection, 200 requests of 20 ms take 4 s where 2 s were
	// given: the last measured one leaves about 2 s after it was due.
	if p99, p50 := field(out.String(), "p99"), field(out.String(), "p50"); p99 < 500 || p50 < 100 {
		t.Fatalf("a target falling behind: %q, want latencies counted from the due times (p50 over 100 ms, p99 over 500 ms)", out.String())
	}
}
