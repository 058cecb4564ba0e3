package devidp_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

// tokenReply is a decoded token-endpoint response.
type tokenReply struct {
	status    int
	challenge string
	header    http.Header
	body      map[string]any
}

// postToken sends form to the token endpoint, with Basic credentials when
// basicUser is not empty.
func postToken(t *testing.T, idp *devidptest.IdP, form url.Values, basicUser, basicPass string) tokenReply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, idp.TokenURL(), strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basicUser != "" {
		req.SetBasicAuth(basicUser, basicPass)
	}
	return do(t, idp, req)
}

func do(t *testing.T, idp *devidptest.IdP, req *http.Request) tokenReply {
	t.Helper()
	resp, err := idp.HTTPClient().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	r := tokenReply{status: resp.StatusCode, challenge: resp.Header.Get("WWW-Authenticate"), header: resp.Header}
	if err := json.NewDecoder(resp.Body).Decode(&r.body); err != nil {
		t.Fatalf("decode the %d response: %v", resp.StatusCode, err)
	}
	return r
}

func clientCredentials(id, secret string) url.Values {
	return url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}
}

// decodeSegment decodes one base64url JSON segment of a JWT.
func decodeSegment(t *testing.T, token string, i int) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts", len(parts))
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[i])
	if err != nil {
		t.Fatalf("decode segment %d: %v", i, err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("unmarshal segment %d: %v", i, err)
	}
	return m
}

func TestEveryDevClientGetsTheTokenDecisionsDescribes(t *testing.T) {
	idp := devidptest.Start(t)
	v := idp.Verifier(t)
	seen := map[string]bool{}
	for _, d := range decisions {
		t.Run(d.client, func(t *testing.T) {
			r := postToken(t, idp, clientCredentials(d.client, d.secret), "", "")
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %v", r.status, r.body)
			}
			scope := strings.Join(d.scopes, " ")
			if r.body["token_type"] != "Bearer" || r.body["expires_in"] != 300.0 || r.body["scope"] != scope {
				t.Errorf("response = %v", r.body)
			}
			if r.header.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", r.header.Get("Cache-Control"))
			}
			tok, _ := r.body["access_token"].(string)

			hdr := decodeSegment(t, tok, 0)
			if hdr["alg"] != "RS256" || hdr["typ"] != "JWT" || hdr["kid"] != idp.KeyID() {
				t.Errorf("header = %v", hdr)
			}
			c := decodeSegment(t, tok, 1)
			want := map[string]any{
				"iss": idp.Issuer(), "azp": d.client, "typ": "Bearer", "scope": scope,
				"department": d.department, "sub": devidp.ServiceAccountID(d.client), "client_id": d.client,
				"preferred_username": "service-account-" + d.client, "clientAddress": "127.0.0.1", "clientHost": "127.0.0.1",
			}
			for k, w := range want {
				if c[k] != w {
					t.Errorf("claim %s = %v, want %v", k, c[k], w)
				}
			}
			if aud, _ := json.Marshal(c["aud"]); string(aud) != `["api-gateway"]` {
				t.Errorf("aud = %s", aud)
			}
			if exp, iat := c["exp"].(float64), c["iat"].(float64); exp-iat != 300 {
				t.Errorf("exp - iat = %v, want 300", exp-iat)
			}
			if jti, _ := c["jti"].(string); jti == "" || seen[jti] {
				t.Errorf("jti %q is empty or repeated", jti)
			} else {
				seen[jti] = true
			}
			if len(c) != len(want)+4 {
				t.Errorf("the token has unexpected claims: %v", c)
			}

			claims, err := v.Verify(context.Background(), tok)
			if err != nil {
				t.Fatalf("pkg/auth rejects the token: %v", err)
			}
			if claims.Department != d.department || strings.Join(claims.Scopes, " ") != scope {
				t.Errorf("verified claims = %+v", claims)
			}
		})
	}
}

func TestTokenEndpointGrants(t *testing.T) {
	idp := devidptest.Start(t)
	tests := []struct {
		name      string
		form      url.Values
		user, pwd string
		scope     string
	}{
		{"HTTP Basic client authentication", url.Values{"grant_type": {"client_credentials"}}, "jobs-admin", "jobs-admin-secret", "jobs:read jobs:write"},
		{"HTTP Basic with a matching client_id in the body", url.Values{"grant_type": {"client_credentials"}, "client_id": {"reader"}}, "reader", "reader-secret", "search:services:read search:migrations:read search:read jobs:read"},
		{"a scope request narrowing the scopes", withScope(clientCredentials("reader", "reader-secret"), "jobs:read search:read"), "", "", "search:read jobs:read"},
		{"a scope request with openid", withScope(clientCredentials("jobs-admin", "jobs-admin-secret"), "openid jobs:write"), "", "", "openid jobs:write"},
		{"a request for a scope that is not put in tokens", withScope(clientCredentials("jobs-admin", "jobs-admin-secret"), "basic"), "", "", ""},
	}
	for _, tt := range tests {
		t.Run("grants a token to "+tt.name, func(t *testing.T) {
			r := postToken(t, idp, tt.form, tt.user, tt.pwd)
			if r.status != http.StatusOK || r.body["scope"] != tt.scope {
				t.Fatalf("got %d %v, want 200 with scope %q", r.status, r.body, tt.scope)
			}
			tok, _ := r.body["access_token"].(string)
			if c := decodeSegment(t, tok, 1); c["scope"] != tt.scope || c["department"] == nil {
				t.Errorf("claims = %v", c)
			}
		})
	}
}

func withScope(v url.Values, scope string) url.Values {
	v.Set("scope", scope)
	return v
}

func TestTokenEndpointRefuses(t *testing.T) {
	idp := devidptest.Start(t)
	const basic = `Basic realm="municipal"`
	tests := []struct {
		name      string
		form      url.Values
		user, pwd string
		status    int
		code      string
		challenge string
	}{
		{"a wrong secret", clientCredentials("reader", "jobs-admin-secret"), "", "", 401, "invalid_client", ""},
		{"an unknown client", clientCredentials("root", "root-secret"), "", "", 401, "invalid_client", ""},
		{"a request without client credentials", url.Values{"grant_type": {"client_credentials"}}, "", "", 401, "invalid_client", ""},
		{"a wrong secret over HTTP Basic", url.Values{"grant_type": {"client_credentials"}}, "reader", "wrong", 401, "invalid_client", basic},
		{"an unknown client over HTTP Basic", url.Values{"grant_type": {"client_credentials"}}, "root", "reader-secret", 401, "invalid_client", basic},
		{"a scope the client lacks", withScope(clientCredentials("reader", "reader-secret"), "jobs:read jobs:write"), "", "", 400, "invalid_scope", ""},
		{"a scope that does not exist", withScope(clientCredentials("reader", "reader-secret"), "admin"), "", "", 400, "invalid_scope", ""},
		{"the password grant", url.Values{"grant_type": {"password"}, "client_id": {"reader"}, "client_secret": {"reader-secret"}}, "", "", 400, "unsupported_grant_type", ""},
		{"a request without grant_type", url.Values{"client_id": {"reader"}, "client_secret": {"reader-secret"}}, "", "", 400, "invalid_request", ""},
		{"a repeated parameter", url.Values{"grant_type": {"client_credentials"}, "client_id": {"reader", "reader"}, "client_secret": {"reader-secret"}}, "", "", 400, "invalid_request", ""},
		{"HTTP Basic and client_secret together", clientCredentials("reader", "reader-secret"), "reader", "reader-secret", 400, "invalid_request", ""},
		{"a body client_id differing from HTTP Basic", url.Values{"grant_type": {"client_credentials"}, "client_id": {"catalog-admin"}}, "reader", "reader-secret", 400, "invalid_request", ""},
		{"a body larger than 16 KiB", withScope(clientCredentials("reader", "reader-secret"), strings.Repeat("s", 17<<10)), "", "", 413, "invalid_request", ""},
	}
	for _, tt := range tests {
		t.Run("refuses "+tt.name, func(t *testing.T) {
			r := postToken(t, idp, tt.form, tt.user, tt.pwd)
			if r.status != tt.status || r.body["error"] != tt.code || r.challenge != tt.challenge {
				t.Errorf("got %d %v (WWW-Authenticate %q), want %d %s (%q)", r.status, r.body, r.challenge, tt.status, tt.code, tt.challenge)
			}
			if _, ok := r.body["access_token"]; ok {
				t.Error("a refused request got a token")
			}
		})
	}
}

func TestTokenEndpointNeedsAFormPOST(t *testing.T) {
	idp := devidptest.Start(t)
	body := clientCredentials("reader", "reader-secret").Encode()

	get, _ := http.NewRequest(http.MethodGet, idp.TokenURL()+"?"+body, nil)
	if r := do(t, idp, get); r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
		t.Errorf("GET: %d Allow=%q, want 405 Allow=POST", r.status, r.header.Get("Allow"))
	}
	js, _ := http.NewRequest(http.MethodPost, idp.TokenURL(), strings.NewReader(`{"grant_type":"client_credentials"}`))
	js.Header.Set("Content-Type", "application/json")
	if r := do(t, idp, js); r.status != http.StatusBadRequest || r.body["error"] != "invalid_request" {
		t.Errorf("JSON body: %d %v, want 400 invalid_request", r.status, r.body)
	}
}

func TestBasicCredentialsAreFormDecoded(t *testing.T) {
	good := string(devidp.DefaultRealmJSON())
	realm, err := devidp.Load([]byte(strings.Replace(good, `"secret": "reader-secret"`, `"secret": "r&d + 100%"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	idp := devidptest.Start(t, devidptest.WithRealm(realm))
	form := url.Values{"grant_type": {"client_credentials"}}

	if r := postToken(t, idp, form, "reader", url.QueryEscape("r&d + 100%")); r.status != http.StatusOK {
		t.Errorf("form-encoded Basic secret: %d %v, want 200", r.status, r.body)
	}
	if tok := idp.Token(t, "reader"); tok == "" {
		t.Error("the secret in the body did not work")
	}
}

func TestDiscoveryAndJWKS(t *testing.T) {
	idp := devidptest.Start(t)
	get := func(path string) tokenReply {
		req, _ := http.NewRequest(http.MethodGet, idp.Issuer()+path, nil)
		return do(t, idp, req)
	}
	d := get("/.well-known/openid-configuration")
	if d.status != 200 || d.body["issuer"] != idp.Issuer() || d.body["jwks_uri"] != idp.JWKSURL() || d.body["token_endpoint"] != idp.TokenURL() {
		t.Errorf("discovery = %d %v", d.status, d.body)
	}
	if !strings.HasSuffix(idp.Issuer(), "/auth/realms/municipal") || !strings.HasPrefix(idp.Issuer(), idp.URL()) {
		t.Errorf("issuer %q is not %s/auth/realms/municipal", idp.Issuer(), idp.URL())
	}
	j := get("/protocol/openid-connect/certs")
	keys, _ := j.body["keys"].([]any)
	if j.status != 200 || len(keys) != 1 {
		t.Fatalf("JWKS = %d %v, want one key", j.status, j.body)
	}
	k := keys[0].(map[string]any)
	if k["kid"] != idp.KeyID() || k["alg"] != "RS256" || k["use"] != "sig" || k["kty"] != "RSA" || k["d"] != nil {
		t.Errorf("JWKS key = %v, want the public RS256 signing key", k)
	}
	post, _ := http.NewRequest(http.MethodPost, idp.JWKSURL(), nil)
	if r := do(t, idp, post); r.status != http.StatusMethodNotAllowed {
		t.Errorf("POST to the JWKS: %d, want 405", r.status)
	}
}

func TestOptions(t *testing.T) {
	fixed := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	idp := devidptest.Start(t, devidptest.WithNow(func() time.Time { return fixed }), devidptest.WithTokenTTL(time.Minute))
	c := decodeSegment(t, idp.Token(t, "reader"), 1)
	if c["iat"] != float64(fixed.Unix()) || c["exp"] != float64(fixed.Add(time.Minute).Unix()) {
		t.Errorf("iat, exp = %v, %v; want the fixed clock and a one-minute TTL", c["iat"], c["exp"])
	}

	for _, issuer := range []string{"", "127.0.0.1:8090", "ftp://idp", "http://idp/?x=1"} {
		if _, err := devidp.New(devidp.Options{Issuer: issuer}); err == nil {
			t.Errorf("New accepted issuer %q", issuer)
		}
	}
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for name, key := range map[string]crypto.Signer{"RSA 1024": small, "ECDSA P-384": p384} {
		if _, err := devidp.New(devidp.Options{Issuer: "http://idp", Key: key}); err == nil {
			t.Errorf("New accepted a %s key", name)
		}
	}
	s, err := devidp.New(devidp.Options{Issuer: "https://id.example/"})
	if err != nil || s.Issuer() != "https://id.example/auth/realms/municipal" {
		t.Errorf("New(https://id.example/) issuer = %v, %v", s, err)
	}
}
