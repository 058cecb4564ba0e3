package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

// An operator's OIDC_ISSUER_URL with a trailing slash: /readyz said ok,
// and every token was a 401 "issued by another issuer". The provider's
// discovery document names its issuer, and readiness now says they differ.
func TestPingSaysWhenTheProviderNamesAnotherIssuer(t *testing.T) {
	t.Parallel()
	idp := devidptest.Start(t)
	// ping polls the readiness of a verifier for a while: the discovery
	// document is read after the keys, and either may come first.
	ping := func(edit func(*auth.Config), done func(error) bool) error {
		cfg := idp.VerifierConfig()
		edit(&cfg)
		v, err := auth.NewVerifier(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		go v.Run(ctx)
		for end := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if err := v.Ping(ctx); done(err) || time.Now().After(end) {
				return err
			}
		}
	}
	mismatch := func(err error) bool {
		var ke *auth.KeysError
		return errors.As(err, &ke) && ke.Cause == auth.CauseIssuerMismatch
	}
	err := ping(func(c *auth.Config) { c.IssuerURL += "/" }, mismatch)
	var ke *auth.KeysError
	if !errors.As(err, &ke) || ke.Cause != auth.CauseIssuerMismatch || ke.Degraded() {
		t.Errorf("a trailing slash: Ping = %v, want the critical cause %s", err, auth.CauseIssuerMismatch)
	}
	if _, err := idp.Verifier(t).Authenticate(request("Bearer " + idp.Token(t, devidptest.Reader))); err != nil {
		t.Fatalf("the provider's own issuer: %v", err)
	}
	// The keys fetched from an address of their own, the issuer not
	// reachable: nothing to compare, nothing said.
	jwks := idp.VerifierConfig()
	err = ping(func(c *auth.Config) {
		c.JWKSURL = jwks.IssuerURL + auth.JWKSPath
		c.IssuerURL = "http://127.0.0.1:1/auth/realms/municipal"
	}, mismatch)
	if err != nil {
		t.Errorf("an unreachable issuer with reachable keys: Ping = %v, want nil", err)
	}
}
