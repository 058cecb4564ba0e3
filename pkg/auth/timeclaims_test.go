package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/problem"
)

func TestTimeClaimsShareOneClockSkew(t *testing.T) {
	idp := devidptest.Start(t)
	now := time.Now()
	tests := []struct {
		name    string
		skew    time.Duration // 0: the default
		max     time.Duration // 0: the default
		changes map[string]any
		reason  string // "" when accepted
	}{
		{"an exp 20s ago passes within the default 30s", 0, 0, map[string]any{"exp": now.Add(-20 * time.Second).Unix(), "iat": now.Add(-5 * time.Minute).Unix()}, ""},
		{"an exp 40s ago is refused", 0, 0, map[string]any{"exp": now.Add(-40 * time.Second).Unix(), "iat": now.Add(-5 * time.Minute).Unix()}, "the token has expired"},
		{"an nbf 20s ahead passes", 0, 0, map[string]any{"nbf": now.Add(20 * time.Second).Unix()}, ""},
		{"an nbf two minutes ahead is refused", 0, 0, map[string]any{"nbf": now.Add(2 * time.Minute).Unix()}, "the token is not valid yet"},
		{"an nbf four minutes ahead is refused", 0, 0, map[string]any{"nbf": now.Add(4 * time.Minute).Unix()}, "the token is not valid yet"},
		{"an iat 20s ahead passes", 0, 0, map[string]any{"iat": now.Add(20 * time.Second).Unix()}, ""},
		{"an iat a minute ahead is refused", 0, 0, map[string]any{"iat": now.Add(time.Minute).Unix(), "exp": now.Add(5 * time.Minute).Unix()}, "the token was issued in the future"},
		{"a 5s skew refuses an exp 20s ago", 5 * time.Second, 0, map[string]any{"exp": now.Add(-20 * time.Second).Unix(), "iat": now.Add(-5 * time.Minute).Unix()}, "the token has expired"},
		{"a 5s skew refuses an nbf 20s ahead", 5 * time.Second, 0, map[string]any{"nbf": now.Add(20 * time.Second).Unix()}, "the token is not valid yet"},
		{"a 5s skew refuses an iat 20s ahead", 5 * time.Second, 0, map[string]any{"iat": now.Add(20 * time.Second).Unix()}, "the token was issued in the future"},
		{"a 5-minute skew accepts an nbf four minutes ahead", 5 * time.Minute, 0, map[string]any{"nbf": now.Add(4 * time.Minute).Unix()}, ""},
		{"a lifetime of exactly a day passes", 0, 0, map[string]any{"iat": now.Unix(), "exp": now.Add(24 * time.Hour).Unix()}, ""},
		{"a lifetime of a day and a second is refused", 0, 0, map[string]any{"iat": now.Unix(), "exp": now.Add(24*time.Hour + time.Second).Unix()}, "the token lives longer than the maximum token lifetime"},
		{"a 10-minute maximum refuses a lifetime of an hour", 0, 10 * time.Minute, map[string]any{"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}, "the token lives longer than the maximum token lifetime"},
		{"fractional NumericDates are numbers", 0, 0, map[string]any{"iat": float64(now.Unix()) + 0.5, "exp": float64(now.Add(time.Minute).Unix()) + 0.25}, ""},
		{"an nbf as a string is refused", 0, 0, map[string]any{"nbf": "0"}, "the token's time claims must be numbers"},
		{"an exp that is null means no expiry", 0, 0, map[string]any{"exp": nil}, "the token has no expiry"},
		{"an exp before iat is refused", 0, 0, map[string]any{"iat": now.Unix(), "exp": now.Add(-time.Second).Unix()}, "the token expires before it was issued"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newVerifier(t, idp, newClock(now), func(c *auth.Config) { c.ClockSkew, c.MaxTokenLifetime = tt.skew, tt.max })
			// One set of claims is signed and compared: the provider's
			// default exp follows the real clock, so building it twice
			// could straddle a second.
			sent := withClaims(idp.Claims(t, devidptest.Reader), tt.changes)
			tok := idp.SignRaw(t, sent, nil)
			claims, err := v.Verify(context.Background(), tok)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if want := time.Unix(int64(toFloat(sent["exp"])), 0); claims.Expiry.Unix() != want.Unix() {
					t.Errorf("Expiry = %v, want %v", claims.Expiry, want)
				}
				return
			}
			if pe := mustProblem(t, err, problem.EUNAUTHORIZED); pe.Detail != tt.reason {
				t.Fatalf("detail = %q, want %q", pe.Detail, tt.reason)
			}
		})
	}
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return -1
}
