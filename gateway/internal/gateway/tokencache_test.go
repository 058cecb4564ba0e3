package gateway

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/problem"
)

// authenticate is what the gateway does: the cache, else the verifier.
func authenticate(c *tokenCache, r *http.Request) (*auth.Claims, error) {
	if claims, ok := c.Cached(r); ok {
		return claims, nil
	}
	return c.Authenticate(r)
}

// counting passes every call to the real verifier and counts it.
type counting struct {
	v     *auth.Verifier
	calls atomic.Int64
}

func (c *counting) Authenticate(r *http.Request) (*auth.Claims, error) {
	c.calls.Add(1)
	return c.v.Authenticate(r)
}

// clock is a settable time shared by the verifier and the cache.
type clock struct{ now atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Unix(0, c.now.Load()) }
func (c *clock) Advance(d time.Duration) { c.now.Add(int64(d)) }

func newCache(t *testing.T, size int) (*tokenCache, *counting, *clock, *devidptest.IdP) {
	t.Helper()
	idp := devidptest.Start(t)
	clk := &clock{}
	clk.now.Store(time.Now().UnixNano())
	cfg := idp.VerifierConfig()
	cfg.Now, cfg.Leeway = clk.Now, time.Nanosecond
	v, err := auth.NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cv := &counting{v: v}
	c := newTokenCache(cv, size)
	c.now = clk.Now
	return c, cv, clk, idp
}

func bearer(tokens ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	for _, tok := range tokens {
		r.Header.Add("Authorization", "Bearer "+tok)
	}
	return r
}

func TestTokenCache(t *testing.T) {
	t.Parallel()
	c, cv, clk, idp := newCache(t, 2)
	claims := idp.Claims(t, "jobs-admin")
	claims["exp"] = clk.Now().Add(time.Minute).Unix()
	token := idp.SignRaw(t, claims, nil)
	forged := idp.SignRaw(t, claims, map[string]any{"kid": "unknown"})

	t.Run("a reused token is verified once", func(t *testing.T) {
		for range 3 {
			got, err := authenticate(c, bearer(token))
			if err != nil || got.ClientID != "jobs-admin" {
				t.Fatalf("Authenticate = %v, %v", got, err)
			}
		}
		if n := cv.calls.Load(); n != 1 {
			t.Fatalf("the verifier ran %d times, want 1", n)
		}
	})
	t.Run("a forged token is verified, and refused, every time", func(t *testing.T) {
		before := cv.calls.Load()
		for range 2 {
			if _, err := authenticate(c, bearer(forged)); !problem.Is(err, problem.EUNAUTHORIZED) {
				t.Fatalf("Authenticate(forged) = %v, want 401", err)
			}
		}
		if n := cv.calls.Load() - before; n != 2 {
			t.Fatalf("the verifier ran %d times, want 2", n)
		}
	})
	t.Run("two Authorization headers bypass the cache and are refused", func(t *testing.T) {
		if _, err := authenticate(c, bearer(token, token)); !problem.Is(err, problem.EUNAUTHORIZED) {
			t.Fatalf("Authenticate(two headers) = %v, want 401", err)
		}
	})
	t.Run("an expired token leaves the cache and is refused", func(t *testing.T) {
		clk.Advance(2 * time.Minute)
		if _, err := authenticate(c, bearer(token)); !problem.Is(err, problem.EUNAUTHORIZED) {
			t.Fatalf("Authenticate(expired) = %v, want 401", err)
		}
	})
}

func TestTokenCacheStaysBounded(t *testing.T) {
	t.Parallel()
	c, _, clk, idp := newCache(t, 2)
	for i := range 5 {
		claims := idp.Claims(t, "reader")
		claims["exp"] = clk.Now().Add(time.Duration(i+1) * time.Minute).Unix()
		if _, err := authenticate(c, bearer(idp.SignRaw(t, claims, nil))); err != nil {
			t.Fatal(err)
		}
		if n := len(c.entries); n > 2 {
			t.Fatalf("the cache holds %d entries, above its size 2", n)
		}
	}
}

func TestTokenCacheOff(t *testing.T) {
	t.Parallel()
	c, cv, _, idp := newCache(t, 0)
	token := idp.Token(t, "reader")
	for range 3 {
		if _, err := authenticate(c, bearer(token)); err != nil {
			t.Fatal(err)
		}
	}
	if n := cv.calls.Load(); n != 3 {
		t.Fatalf("with the cache off the verifier ran %d times, want 3", n)
	}
}
