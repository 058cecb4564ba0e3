package auth_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/problem"
)

// clock is a settable clock safe for concurrent use.
type clock struct{ unix atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.unix.Store(t.UnixNano())
	return c
}

func (c *clock) Now() time.Time          { return time.Unix(0, c.unix.Load()) }
func (c *clock) Advance(d time.Duration) { c.unix.Add(int64(d)) }

// newVerifier returns a verifier of idp whose clock is c.
func newVerifier(t *testing.T, idp *devidptest.IdP, c *clock, edit ...func(*auth.Config)) *auth.Verifier {
	t.Helper()
	cfg := idp.VerifierConfig()
	cfg.Now = c.Now
	for _, e := range edit {
		e(&cfg)
	}
	v, err := auth.NewVerifier(cfg)
	if err != nil {
		t.Fatalf("NewVerifier: %v", err)
	}
	return v
}

// mustProblem asserts that err is a *problem.Error with code.
func mustProblem(t *testing.T, err error, code problem.Code) *problem.Error {
	t.Helper()
	var pe *problem.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want a *problem.Error", err, err)
	}
	if pe.Code != code {
		t.Fatalf("code = %q (%v), want %q", pe.Code, err, code)
	}
	return pe
}

// invalidToken is the challenge expected for an unacceptable token.
func invalidToken(desc string) string {
	return `Bearer realm="municipal", error="invalid_token", error_description="` + desc + `"`
}

// request builds a GET carrying each of authorization as an Authorization header.
func request(authorization ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/api/v1/things", nil)
	for _, a := range authorization {
		r.Header.Add("Authorization", a)
	}
	return r
}

// withClaims returns claims with the given members replaced (nil removes one).
func withClaims(claims map[string]any, changes map[string]any) map[string]any {
	out := make(map[string]any, len(claims))
	for k, v := range claims {
		out[k] = v
	}
	for k, v := range changes {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// tamper replaces the payload of a signed token, keeping its signature.
func tamper(t *testing.T, token string, changes map[string]any) string {
	t.Helper()
	parts := strings.Split(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("decode payload: %v", err)
	}
	var claims map[string]any
	if err := json.Unmarshal(raw, &claims); err != nil {
		t.Fatalf("unmarshal payload: %v", err)
	}
	b, err := json.Marshal(withClaims(claims, changes))
	if err != nil {
		t.Fatalf("marshal payload: %v", err)
	}
	parts[1] = base64.RawURLEncoding.EncodeToString(b)
	return strings.Join(parts, ".")
}
