// Package devidptest runs the development identity provider inside tests:
// Start serves the real devidp handler with the embedded realm on a loopback
// port, fetches tokens with the client-credentials flow, and forges hostile
// tokens with the real signing key. RotateKey, RemoveKey, Stop and Resume play
// a provider's key rotation and outages.
package devidptest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp"
)

// The clients of the embedded development realm (docs/decisions.md#realm-clients-and-scopes).
const (
	CatalogAdmin = "catalog-admin"
	JobsAdmin    = "jobs-admin"
	Reader       = "reader"
	OtherDept    = "other-dept"
)

// IdP is a running development identity provider.
type IdP struct {
	idp         *devidp.Server
	realm       *devidp.Realm
	addr        string // host:port, kept across Stop and Resume
	client      *http.Client
	jwksFetches atomic.Int64

	mu  sync.Mutex
	srv *http.Server // nil while stopped
	key crypto.Signer
}

// Option changes how Start builds the identity provider.
type Option func(*devidp.Options)

// WithKey signs with k (*rsa.PrivateKey or P-256 *ecdsa.PrivateKey) instead of a fresh RSA key.
func WithKey(k crypto.Signer) Option { return func(o *devidp.Options) { o.Key = k } }

// WithNow sets the identity provider's clock, which stamps iat and exp.
func WithNow(now func() time.Time) Option { return func(o *devidp.Options) { o.Now = now } }

// WithRealm serves r instead of the embedded realm.
func WithRealm(r *devidp.Realm) Option { return func(o *devidp.Options) { o.Realm = r } }

// WithTokenTTL sets the access-token lifetime.
func WithTokenTTL(d time.Duration) Option { return func(o *devidp.Options) { o.TokenTTL = d } }

// Start runs devidp on a loopback port until the test ends.
func Start(tb testing.TB, opts ...Option) *IdP {
	tb.Helper()
	o := devidp.Options{Logger: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(&o)
	}
	if o.Realm == nil {
		r, err := devidp.DefaultRealm()
		if err != nil {
			tb.Fatalf("devidptest: load the embedded realm: %v", err)
		}
		o.Realm = r
	}
	if o.Key == nil {
		o.Key = newKeyLike(tb, nil)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("devidptest: listen: %v", err)
	}
	p := &IdP{realm: o.Realm, key: o.Key, addr: ln.Addr().String()}
	p.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	o.Issuer = "http://" + p.addr
	idp, err := devidp.New(o)
	if err != nil {
		ln.Close()
		tb.Fatalf("devidptest: start devidp: %v", err)
	}
	p.idp = idp
	p.serve(ln)
	tb.Cleanup(func() {
		p.Stop(tb)
		p.client.CloseIdleConnections()
	})
	return p
}

// serve answers on ln until Stop.
func (p *IdP) serve(ln net.Listener) {
	jwksPath := mustPath(p.idp.JWKSURL())
	srv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == jwksPath {
				p.jwksFetches.Add(1)
			}
			p.idp.ServeHTTP(w, r)
		}),
	}
	p.mu.Lock()
	p.srv = srv
	p.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// Stop takes the identity provider off the network, as an outage would: its
// port refuses connections and open ones are closed. Resume brings it back
// on the same address with the same keys.
func (p *IdP) Stop(tb testing.TB) {
	tb.Helper()
	p.mu.Lock()
	srv := p.srv
	p.srv = nil
	p.mu.Unlock()
	if srv == nil {
		return
	}
	if err := srv.Close(); err != nil {
		tb.Errorf("devidptest: stop: %v", err)
	}
}

// Resume serves again on the address Stop left.
func (p *IdP) Resume(tb testing.TB) {
	tb.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port may linger for a moment after Stop
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		tb.Fatalf("devidptest: listen again on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

// RotateKey signs every later token with a fresh key of the same kind and
// returns its kid; the previous keys stay in the JWKS until RemoveKey.
func (p *IdP) RotateKey(tb testing.TB) string {
	tb.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	key := newKeyLike(tb, p.key)
	kid, err := p.idp.RotateKey(key)
	if err != nil {
		tb.Fatalf("devidptest: %v", err)
	}
	p.key = key
	return kid
}

// RemoveKey stops announcing kid in the JWKS, as a provider does once it
// retires a key.
func (p *IdP) RemoveKey(tb testing.TB, kid string) {
	tb.Helper()
	if err := p.idp.RemoveKey(kid); err != nil {
		tb.Fatalf("devidptest: %v", err)
	}
}

// signer returns the key that signs new tokens, its kid and its algorithm.
func (p *IdP) signer() (key crypto.Signer, kid, alg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.key, p.idp.KeyID(), p.idp.Algorithm()
}

// newKeyLike generates a key of the kind of like: P-256 for an ECDSA key,
// else RSA 2048.
func newKeyLike(tb testing.TB, like crypto.Signer) crypto.Signer {
	tb.Helper()
	var k crypto.Signer
	var err error
	if _, ok := like.(*ecdsa.PrivateKey); ok {
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	} else {
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	if err != nil {
		tb.Fatalf("devidptest: generate key: %v", err)
	}
	return k
}

func mustPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(fmt.Sprintf("devidptest: devidp announced the unparsable URL %q: %v", raw, err))
	}
	return u.Path
}

// URL returns the base URL the identity provider listens on.
func (p *IdP) URL() string { return "http://" + p.addr }

// Issuer returns the full issuer URL, the iss of its tokens.
func (p *IdP) Issuer() string { return p.idp.Issuer() }

// JWKSURL returns the URL of the JWKS.
func (p *IdP) JWKSURL() string { return p.idp.JWKSURL() }

// TokenURL returns the URL of the token endpoint.
func (p *IdP) TokenURL() string { return p.idp.TokenURL() }

// KeyID returns the kid of the signing key.
func (p *IdP) KeyID() string { return p.idp.KeyID() }

// Realm returns the realm being served; treat it as read-only.
func (p *IdP) Realm() *devidp.Realm { return p.realm }

// HTTPClient returns a client for the identity provider's server.
func (p *IdP) HTTPClient() *http.Client { return p.client }

// JWKSFetches returns how many JWKS requests the identity provider has served.
func (p *IdP) JWKSFetches() int64 { return p.jwksFetches.Load() }

// VerifierConfig returns an auth.Config that trusts this identity provider.
func (p *IdP) VerifierConfig() auth.Config {
	return auth.Config{
		IssuerURL:  p.Issuer(),
		HTTPClient: p.client,
		Logger:     slog.New(slog.DiscardHandler),
	}
}

// Verifier returns an auth.Verifier that trusts this identity provider.
func (p *IdP) Verifier(tb testing.TB) *auth.Verifier {
	tb.Helper()
	v, err := auth.NewVerifier(p.VerifierConfig())
	if err != nil {
		tb.Fatalf("devidptest: new verifier: %v", err)
	}
	return v
}

// Token obtains an access token for clientID over HTTP with the
// client-credentials flow and the realm's secret; scopes, when given, narrow
// the token's scope claim.
func (p *IdP) Token(tb testing.TB, clientID string, scopes ...string) string {
	tb.Helper()
	c, ok := p.realm.Client(clientID)
	if !ok {
		tb.Fatalf("devidptest: the realm has no client %q", clientID)
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {c.Secret}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	resp, err := p.client.PostForm(p.TokenURL(), form)
	if err != nil {
		tb.Fatalf("devidptest: token request for %s: %v", clientID, err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		tb.Fatalf("devidptest: decode token response for %s: %v", clientID, err)
	}
	if resp.StatusCode != http.StatusOK || body.AccessToken == "" {
		tb.Fatalf("devidptest: token request for %s: %s %s: %s", clientID, resp.Status, body.Error, body.Description)
	}
	return body.AccessToken
}

// Claims returns the claims the token endpoint would issue to clientID, a
// starting point for forged tokens: change a claim, then SignRaw.
func (p *IdP) Claims(tb testing.TB, clientID string, scopes ...string) map[string]any {
	tb.Helper()
	c, err := p.idp.Claims(clientID, scopes...)
	if err != nil {
		tb.Fatalf("devidptest: %v", err)
	}
	return c
}
