package auth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/problem"
)

func randomKid(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func TestAFloodOfUnknownKidsCausesABoundedNumberOfJWKSFetches(t *testing.T) {
	idp := devidptest.Start(t)
	now := newClock(time.Now())
	v := newVerifier(t, idp, now)
	ctx := context.Background()
	claims := idp.Claims(t, devidptest.Reader)

	if _, err := v.Verify(ctx, idp.Token(t, devidptest.Reader)); err != nil {
		t.Fatalf("Verify of a valid token: %v", err)
	}
	if got := idp.JWKSFetches(); got != 1 {
		t.Fatalf("JWKS fetches after the first token = %d, want 1", got)
	}

	forged := make([]string, 200)
	for i := range forged {
		forged[i] = idp.SignRaw(t, claims, map[string]any{"kid": randomKid(t)})
	}
	flood := func() {
		var wg sync.WaitGroup
		for _, tok := range forged {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := v.Verify(ctx, tok); problem.CodeOf(err) != problem.EUNAUTHORIZED {
					t.Errorf("Verify of a forged kid = %v, want 401", err)
				}
			}()
		}
		wg.Wait()
		for _, tok := range forged {
			_, err := v.Verify(ctx, tok)
			mustProblem(t, err, problem.EUNAUTHORIZED)
		}
	}

	flood()
	if got := idp.JWKSFetches(); got != 1 {
		t.Errorf("JWKS fetches within the cooldown = %d, want still 1", got)
	}

	now.Advance(auth.DefaultRefetchCooldown + time.Second)
	flood()
	if got := idp.JWKSFetches(); got != 2 {
		t.Errorf("JWKS fetches after the cooldown = %d, want exactly one more (2)", got)
	}
}

// switchableJWKS serves the JWKS of one identity provider or another.
type switchableJWKS struct {
	current atomic.Pointer[devidptest.IdP]
	hits    atomic.Int64
	// kid, when set, is the kid every key is served under, so that
	// switching IdPs replaces a key under the same kid.
	kid string
}

func (s *switchableJWKS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	idp := s.current.Load()
	resp, err := idp.HTTPClient().Get(idp.JWKSURL())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", "application/json")
	if s.kid == "" {
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		return
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for i := range set.Keys {
		set.Keys[i].KeyID = s.kid
	}
	_ = json.NewEncoder(w).Encode(set)
}

// A provider that starts signing with a new key a moment after an
// instance's last fetch (a Keycloak key added at the highest priority, a
// restarted provider) costs its clients at most a second of 401s, the
// refetch cooldown: the multi-instance review measured 4.5 s with the 5 s
// cooldown of before.
func TestVerifyPicksUpARotatedKeyASecondAfterTheLastFetch(t *testing.T) {
	oldIdP, newIdP := devidptest.Start(t), devidptest.Start(t)
	jwks := &switchableJWKS{}
	jwks.current.Store(oldIdP)
	srv := httptest.NewServer(jwks)
	t.Cleanup(srv.Close)
	now := newClock(time.Now())
	v := newVerifier(t, oldIdP, now, func(c *auth.Config) { c.JWKSURL = srv.URL + "/certs" })
	ctx := context.Background()

	if _, err := v.Verify(ctx, oldIdP.Token(t, devidptest.Reader)); err != nil {
		t.Fatalf("Verify with the JWKS at another URL than the issuer: %v", err)
	}
	jwks.current.Store(newIdP)
	rotated := newIdP.SignRaw(t, oldIdP.Claims(t, devidptest.Reader), nil)

	_, err := v.Verify(ctx, rotated)
	if pe := mustProblem(t, err, problem.EUNAUTHORIZED); pe.Detail != "the token is signed with an unknown key" {
		t.Errorf("within the cooldown: detail = %q", pe.Detail)
	}
	now.Advance(time.Second + 100*time.Millisecond)
	if _, err := v.Verify(ctx, rotated); err != nil {
		t.Fatalf("1.1 s after the last fetch the rotated key is not used: %v", err)
	}
	if got := jwks.hits.Load(); got != 2 {
		t.Errorf("JWKS fetches = %d, want 2", got)
	}
}

func TestVerifyAnswers503WhileTheJWKSCannotBeFetched(t *testing.T) {
	idp := devidptest.Start(t)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	v := newVerifier(t, idp, newClock(time.Now()), func(c *auth.Config) { c.JWKSURL = down.URL })

	_, err := v.Verify(context.Background(), idp.Token(t, devidptest.Reader))
	pe := mustProblem(t, err, problem.EUNAVAILABLE)
	if want := strconv.Itoa(int(auth.DefaultRefetchCooldown.Seconds())); pe.Header.Get("Retry-After") != want {
		t.Errorf("Retry-After = %q, want %s (the refetch cooldown)", pe.Header.Get("Retry-After"), want)
	}
	if err := v.Ping(context.Background()); err == nil {
		t.Error("Ping succeeded while the JWKS answers 503")
	}
}

func TestPing(t *testing.T) {
	idp := devidptest.Start(t)
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"keys":[{"kty":"RSA","use":"enc","alg":"RSA-OAEP","n":"sXch","e":"AQAB"}]}`)
	}))
	t.Cleanup(empty.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	tests := []struct {
		name    string
		jwksURL string
		cause   string // "" when ready
	}{
		{"succeeds when the JWKS has a signing key", "", ""},
		{"fails with no_signing_key when the JWKS has only an encryption key", empty.URL, auth.CauseNoSigningKey},
		{"fails with unreachable when nothing listens at the JWKS URL", closed.URL, auth.CauseUnreachable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newVerifier(t, idp, newClock(time.Now()), func(c *auth.Config) {
				if tt.jwksURL != "" {
					c.JWKSURL = tt.jwksURL
				}
			})
			err := v.Ping(context.Background())
			if tt.cause == "" {
				if err != nil {
					t.Fatalf("Ping() = %v", err)
				}
				return
			}
			var ke *auth.KeysError
			if !errors.As(err, &ke) || ke.Stale || ke.Cause != tt.cause {
				t.Fatalf("Ping() = %#v, want a *KeysError without keys, cause %s", err, tt.cause)
			}
			if strings.Contains(ke.ProbeCause(), "127.0.0.1") {
				t.Errorf("the probe cause %q names an address", ke.ProbeCause())
			}
		})
	}
}

func TestNewVerifier(t *testing.T) {
	tests := []struct {
		name string
		cfg  auth.Config
		ok   bool
	}{
		{"needs no running identity provider", auth.Config{IssuerURL: "http://127.0.0.1:1/auth/realms/municipal"}, true},
		{"accepts a JWKS URL on another host", auth.Config{IssuerURL: "https://id.example/auth/realms/municipal", JWKSURL: "http://keycloak:8080/auth/realms/municipal/protocol/openid-connect/certs"}, true},
		{"refuses an empty issuer", auth.Config{}, false},
		{"refuses a relative issuer", auth.Config{IssuerURL: "/auth/realms/municipal"}, false},
		{"refuses a JWKS URL of another scheme", auth.Config{IssuerURL: "http://idp", JWKSURL: "file:///etc/jwks.json"}, false},
		{"refuses a negative clock skew", auth.Config{IssuerURL: "http://idp", ClockSkew: -time.Second}, false},
		{"refuses a refresh interval below the refetch cooldown", auth.Config{IssuerURL: "http://idp", RefreshInterval: time.Second, RefetchCooldown: 2 * time.Second}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := auth.NewVerifier(tt.cfg)
			if (err == nil) != tt.ok {
				t.Errorf("NewVerifier() error = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// withKeys serves idp's JWKS with extra keys added.
type withKeys struct {
	idp   *devidptest.IdP
	extra []jose.JSONWebKey
}

func (x withKeys) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	resp, err := x.idp.HTTPClient().Get(x.idp.JWKSURL())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	set.Keys = append(set.Keys, x.extra...)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(set)
}

// RS256 needs a key of 2048 bits or more (RFC 7518 3.3); a reviewer's
// 1024-bit key, which can be factored, verified tokens.
func TestAnRSAKeyShorterThan2048BitsIsNotUsed(t *testing.T) {
	weakKey, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	idp := devidptest.Start(t)
	srv := httptest.NewServer(withKeys{idp, []jose.JSONWebKey{{Key: &weakKey.PublicKey, KeyID: "weak", Algorithm: "RS256", Use: "sig"}}})
	t.Cleanup(srv.Close)
	v := newVerifier(t, idp, newClock(time.Now()), func(c *auth.Config) { c.JWKSURL, c.HTTPClient = srv.URL, srv.Client() })
	ctx := context.Background()
	if _, err := v.Verify(ctx, idp.Token(t, devidptest.Reader)); err != nil {
		t.Fatalf("a token of the realm's 2048-bit key: %v", err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: weakKey, KeyID: "weak"}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(mustJSON(t, idp.Claims(t, devidptest.Reader)))
	if err != nil {
		t.Fatal(err)
	}
	weak, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(ctx, weak)
	if pe := mustProblem(t, err, problem.EUNAUTHORIZED); pe.Detail != "the token is signed with an unknown key" {
		t.Fatalf("a token of the 1024-bit key: %v", err)
	}
	if v.HoldsKey("weak") {
		t.Error("the 1024-bit key is held")
	}
}
