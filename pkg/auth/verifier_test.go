package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/problem"
)

func TestVerifyAcceptsAValidTokenAndParsesItsClaims(t *testing.T) {
	idp := devidptest.Start(t)
	v := idp.Verifier(t)
	start := time.Now()

	c, err := v.Authenticate(request("Bearer " + idp.Token(t, devidptest.Reader)))
	if err != nil {
		t.Fatalf("Authenticate: %v", err)
	}
	user, _ := idp.Realm().ServiceAccount(devidptest.Reader)
	if c.Subject != user.ID || c.Subject == "" {
		t.Errorf("Subject = %q, want the service account id %q", c.Subject, user.ID)
	}
	if c.ClientID != "reader" || c.Department != "planejamento" || c.PreferredUsername != "service-account-reader" {
		t.Errorf("ClientID, Department, PreferredUsername = %q, %q, %q", c.ClientID, c.Department, c.PreferredUsername)
	}
	want := []string{"search:services:read", "search:migrations:read", "search:read", "jobs:read"}
	if !slices.Equal(c.Scopes, want) {
		t.Errorf("Scopes = %q, want %q", c.Scopes, want)
	}
	if c.TokenID == "" || c.Name != "" {
		t.Errorf("TokenID = %q, Name = %q; want a jti and no name", c.TokenID, c.Name)
	}
	if exp := c.Expiry.Sub(start); exp < 290*time.Second || exp > 310*time.Second {
		t.Errorf("Expiry is %v after the request, want about 300s", exp)
	}
	if got := c.DisplayName(); got != "service-account-reader" {
		t.Errorf("DisplayName() = %q", got)
	}
}

func TestVerifyAcceptsTheseTokens(t *testing.T) {
	idp := devidptest.Start(t)
	now := newClock(time.Now())
	v := newVerifier(t, idp, now)
	base := idp.Claims(t, devidptest.JobsAdmin)

	tests := []struct {
		name  string
		auth  string
		scope string
	}{
		{"a token from the token endpoint", "Bearer " + idp.Token(t, devidptest.JobsAdmin), "jobs:write"},
		{"a lower-case bearer scheme", "bearer " + idp.Token(t, devidptest.JobsAdmin), "jobs:write"},
		{"an upper-case bearer scheme", "BEARER " + idp.Token(t, devidptest.JobsAdmin), "jobs:write"},
		{"a token expired less than the leeway ago",
			"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"iat": now.Now().Add(-320 * time.Second).Unix(), "exp": now.Now().Add(-20 * time.Second).Unix()}), nil), "jobs:read"},
		{"a token whose aud is a single string",
			"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"aud": "api-gateway"}), nil), "jobs:read"},
		{"a token with several audiences",
			"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"aud": []string{"account", "api-gateway"}}), nil), "jobs:read"},
		{"a token with a name, used as display name",
			"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"name": "Maria Silva"}), nil), "jobs:read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := v.Authenticate(request(tt.auth))
			if err != nil {
				t.Fatalf("Authenticate: %v", err)
			}
			if c.ClientID != "jobs-admin" || !c.HasScope(tt.scope) {
				t.Errorf("claims = %+v, want jobs-admin with %s", c, tt.scope)
			}
		})
	}
}

func TestVerifyAcceptsES256Tokens(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	idp := devidptest.Start(t, devidptest.WithKey(key))
	tok := idp.Token(t, devidptest.OtherDept)
	if !strings.HasPrefix(tok, "eyJ") {
		t.Fatalf("token %q does not look like a JWT", tok[:10])
	}
	c, err := idp.Verifier(t).Verify(context.Background(), tok)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if c.Department != "educacao" {
		t.Errorf("Department = %q, want educacao", c.Department)
	}
}

func TestAuthenticateRejectsWith401(t *testing.T) {
	idp := devidptest.Start(t)
	other := devidptest.Start(t)
	now := newClock(time.Now())
	v := newVerifier(t, idp, now)
	base := idp.Claims(t, devidptest.CatalogAdmin)
	valid := idp.Token(t, devidptest.Reader)
	const noError = `Bearer realm="municipal"`

	tests := []struct {
		name      string
		auth      []string
		challenge string
	}{
		{"a request without an Authorization header", nil, noError},
		{"the Basic scheme", []string{"Basic Y2F0YWxvZy1hZG1pbjpjYXRhbG9nLWFkbWluLXNlY3JldA=="}, noError},
		{"a token with no scheme", []string{valid}, noError},
		{"the Bearer scheme without a token", []string{"Bearer"}, invalidToken("the bearer token is empty or malformed")},
		{"a token that is not a JWT", []string{"Bearer abc.def"}, invalidToken("the token is not a JWT")},
		{"a token with characters outside b64token", []string{"Bearer a,b.c"}, invalidToken("the bearer token is empty or malformed")},
		{"two Authorization headers", []string{"Bearer " + valid, "Bearer " + valid}, invalidToken("the request has more than one Authorization header")},
		{"a header longer than 8 KiB", []string{"Bearer " + strings.Repeat("a", auth.MaxTokenBytes+1)}, invalidToken("the Authorization header is too long")},
		{"an expired token",
			[]string{"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"exp": now.Now().Add(-time.Minute).Unix()}), nil)},
			invalidToken("the token has expired")},
		{"a token without exp",
			[]string{"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"exp": nil}), nil)},
			invalidToken("the token has no expiry")},
		{"a token from another issuer",
			[]string{"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"iss": other.Issuer()}), nil)},
			invalidToken("the token was issued by another issuer")},
		{"a token whose issuer differs by a trailing slash",
			[]string{"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"iss": idp.Issuer() + "/"}), nil)},
			invalidToken("the token was issued by another issuer")},
		{"a token for another audience",
			[]string{"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"aud": []string{"account"}}), nil)},
			invalidToken("the token is not meant for this audience")},
		{"a token without aud",
			[]string{"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"aud": nil}), nil)},
			invalidToken("the token is not meant for this audience")},
		{"an unsigned token (alg none)",
			[]string{"Bearer " + devidptest.Unsigned(t, base, map[string]any{"kid": idp.KeyID()})},
			invalidToken("the token must be signed with RS256 or ES256")},
		{"an HS256 token keyed with the RSA public key",
			[]string{"Bearer " + devidptest.SignHS256(t, base, map[string]any{"kid": idp.KeyID()}, idp.PublicKeyPEM(t))},
			invalidToken("the token must be signed with RS256 or ES256")},
		{"a token whose header claims RS384",
			[]string{"Bearer " + idp.SignRaw(t, base, map[string]any{"alg": "RS384"})},
			invalidToken("the token must be signed with RS256 or ES256")},
		{"a token with a tampered payload",
			[]string{"Bearer " + tamper(t, valid, map[string]any{"scope": "search:read jobs:write"})},
			invalidToken("the token signature is invalid")},
		{"a token signed by another key under the real kid",
			[]string{"Bearer " + other.SignRaw(t, base, map[string]any{"kid": idp.KeyID()})},
			invalidToken("the token signature is invalid")},
		{"a token without kid, even one the realm key signed",
			[]string{"Bearer " + idp.SignRaw(t, base, map[string]any{"kid": nil})},
			invalidToken("the token names no signing key (kid)")},
		{"a token with an unknown kid",
			[]string{"Bearer " + idp.SignRaw(t, base, map[string]any{"kid": "no-such-key"})},
			invalidToken("the token is signed with an unknown key")},
		{"an ID token (typ ID)",
			[]string{"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"typ": "ID"}), nil)},
			invalidToken("the token is not an access token")},
		{"a token without typ",
			[]string{"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"typ": nil}), nil)},
			invalidToken("the token is not an access token")},
		{"a token without azp",
			[]string{"Bearer " + idp.SignRaw(t, withClaims(base, map[string]any{"azp": nil}), nil)},
			invalidToken("the token names no client (azp)")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := v.Authenticate(request(tt.auth...))
			if c != nil {
				t.Fatalf("claims = %+v, want none", c)
			}
			pe := mustProblem(t, err, problem.EUNAUTHORIZED)
			if got := pe.Header.Get("WWW-Authenticate"); got != tt.challenge {
				t.Errorf("WWW-Authenticate = %s\nwant                %s", got, tt.challenge)
			}
			if pe.Detail == "" {
				t.Error("the problem has no detail")
			}
			for _, h := range tt.auth {
				if len(h) > len("Bearer ") && strings.Contains(pe.Error(), h[len("Bearer "):]) {
					t.Error("the error echoes the token")
				}
			}
		})
	}
}
