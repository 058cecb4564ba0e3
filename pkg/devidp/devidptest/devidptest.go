// Package devidptest runs the development identity provider inside tests:
// Start serves the real devidp handler with the embedded realm on a loopback
// httptest server, fetches tokens with the client-credentials flow, and forges
// hostile tokens with the real signing key.
package devidptest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
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
	srv         *httptest.Server
	idp         *devidp.Server
	realm       *devidp.Realm
	key         crypto.Signer
	jwksFetches atomic.Int64
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

// Start runs devidp on a loopback httptest server until the test ends.
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
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			tb.Fatalf("devidptest: generate key: %v", err)
		}
		o.Key = k
	}
	p := &IdP{realm: o.Realm, key: o.Key}
	p.srv = httptest.NewUnstartedServer(nil)
	o.Issuer = "http://" + p.srv.Listener.Addr().String()
	idp, err := devidp.New(o)
	if err != nil {
		p.srv.Close()
		tb.Fatalf("devidptest: start devidp: %v", err)
	}
	p.idp = idp
	jwksPath := mustPath(tb, idp.JWKSURL())
	p.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == jwksPath {
			p.jwksFetches.Add(1)
		}
		idp.ServeHTTP(w, r)
	})
	p.srv.Start()
	tb.Cleanup(p.srv.Close)
	return p
}

func mustPath(tb testing.TB, raw string) string {
	tb.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		tb.Fatalf("devidptest: parse %q: %v", raw, err)
	}
	return u.Path
}

// URL returns the base URL the identity provider listens on.
func (p *IdP) URL() string { return p.srv.URL }

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
func (p *IdP) HTTPClient() *http.Client { return p.srv.Client() }

// JWKSFetches returns how many JWKS requests the identity provider has served.
func (p *IdP) JWKSFetches() int64 { return p.jwksFetches.Load() }

// VerifierConfig returns an auth.Config that trusts this identity provider.
func (p *IdP) VerifierConfig() auth.Config {
	return auth.Config{
		IssuerURL:  p.Issuer(),
		HTTPClient: p.srv.Client(),
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
	resp, err := p.srv.Client().PostForm(p.TokenURL(), form)
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
