package auth_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/problem"
)

// authenticate is what the gateway does: the cache, else the verifier.
func authenticate(c *auth.TokenCache, authorization [][]byte) (*auth.Claims, error) {
	if claims, ok := c.Cached(authorization); ok {
		return claims, nil
	}
	return c.AuthenticateHeader(context.Background(), authorization)
}

// counting passes every call to the real verifier and counts it.
type counting struct {
	v     *auth.Verifier
	calls atomic.Int64
}

func (c *counting) AuthenticateHeader(ctx context.Context, authorization []string) (*auth.Claims, error) {
	c.calls.Add(1)
	return c.v.AuthenticateHeader(ctx, authorization)
}

func (c *counting) HoldsKeyOf(claims *auth.Claims) bool { return c.v.HoldsKeyOf(claims) }

func (c *counting) HoldsKeyForHeader(authorization []string) bool {
	return c.v.HoldsKeyForHeader(authorization)
}

// clock is a settable time shared by the verifier and the cache.
type cacheClock struct{ now atomic.Int64 }

func (c *cacheClock) Now() time.Time          { return time.Unix(0, c.now.Load()) }
func (c *cacheClock) Advance(d time.Duration) { c.now.Add(int64(d)) }

func newCache(t *testing.T, size int) (*auth.TokenCache, *counting, *cacheClock, *devidptest.IdP) {
	t.Helper()
	idp := devidptest.Start(t)
	clk := &cacheClock{}
	clk.now.Store(time.Now().Add(2 * time.Second).UnixNano()) // ahead of the iat of tokens fetched from idp
	cfg := idp.VerifierConfig()
	cfg.Now, cfg.ClockSkew = clk.Now, time.Nanosecond
	v, err := auth.NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cv := &counting{v: v}
	c, err := auth.NewTokenCache(cv, size, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	return c, cv, clk, idp
}

// bearer is the Authorization header values of a request sending tokens.
func bearer(tokens ...string) [][]byte {
	var values [][]byte
	for _, tok := range tokens {
		values = append(values, []byte("Bearer "+tok))
	}
	return values
}

func TestTokenCache(t *testing.T) {
	t.Parallel()
	c, cv, clk, idp := newCache(t, 2)
	claims := idp.Claims(t, "jobs-admin")
	claims["exp"] = clk.Now().Add(time.Minute).Unix()
	claims["iat"] = clk.Now().Unix()
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

func TestTokenCacheKeysByTheWholeHeader(t *testing.T) {
	t.Parallel()
	c, cv, _, idp := newCache(t, 10)
	header := bearer(idp.Token(t, "reader"))
	if _, err := authenticate(c, header); err != nil {
		t.Fatal(err)
	}
	// Every header one byte away from the cached one misses: none of them
	// shares the entry of the token that was verified.
	for i := range header[0] {
		for _, flip := range []byte{0x01, 0x20, 0x80} {
			other := bytes.Clone(header[0])
			other[i] ^= flip
			if claims, ok := c.Cached([][]byte{other}); ok {
				t.Fatalf("header with byte %d changed (%q) hit the cache: %+v", i, other[i], claims)
			}
		}
	}
	for _, other := range []string{string(header[0][:len(header[0])-1]), string(header[0]) + "A", string(header[0]) + "="} {
		if _, ok := c.Cached([][]byte{[]byte(other)}); ok {
			t.Fatalf("header %q hit the cache of another", other)
		}
	}
	// A header's bytes changed after it was cached do not change the entry:
	// the cache keeps its own copy.
	if _, ok := c.Cached(header); !ok {
		t.Fatal("the verified header itself misses")
	}
	kept := bytes.Clone(header[0])
	header[0][len(header[0])-1] ^= 0x01
	if _, ok := c.Cached([][]byte{kept}); !ok {
		t.Fatal("the entry changed with the request's bytes")
	}
	if n := cv.calls.Load(); n != 1 {
		t.Fatalf("the verifier ran %d times, want 1", n)
	}
}

func TestTokenCacheStoresOnlyThePlainBearerForm(t *testing.T) {
	t.Parallel()
	c, cv, _, idp := newCache(t, 10)
	token := idp.Token(t, "reader")
	// Padded forms the verifier accepts are verified each time: an entry is
	// never larger than its token.
	for _, h := range []string{"Bearer  " + token, "Bearer " + token + " ", " Bearer " + token, "Bearer " + token + "\t"} {
		for range 2 {
			if _, err := authenticate(c, [][]byte{[]byte(h)}); err != nil {
				t.Fatalf("Authenticate(%q) = %v", h, err)
			}
		}
	}
	if n := c.Len(); n != 0 {
		t.Fatalf("the cache holds %d padded headers", n)
	}
	if n := cv.calls.Load(); n != 8 {
		t.Fatalf("the verifier ran %d times, want 8", n)
	}
	for range 2 {
		if _, err := authenticate(c, [][]byte{[]byte("bearer " + token)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := cv.calls.Load(); n != 9 {
		t.Fatalf("the plain form with a lower-case scheme was verified %d times, want once", n-8)
	}
}

func TestTokenCacheStaysBounded(t *testing.T) {
	t.Parallel()
	c, _, clk, idp := newCache(t, 2)
	for i := range 5 {
		claims := idp.Claims(t, "reader")
		claims["exp"] = clk.Now().Add(time.Duration(i+1) * time.Minute).Unix()
		claims["iat"] = clk.Now().Unix()
		if _, err := authenticate(c, bearer(idp.SignRaw(t, claims, nil))); err != nil {
			t.Fatal(err)
		}
		if n := c.Len(); n > 2 {
			t.Fatalf("the cache holds %d entries, above its size 2", n)
		}
	}
}

func TestTokenCacheEvictsTheLeastRecentlyUsedToken(t *testing.T) {
	t.Parallel()
	c, cv, clk, idp := newCache(t, 3)
	mint := func() string {
		claims := idp.Claims(t, "reader")
		claims["exp"] = clk.Now().Add(time.Hour).Unix()
		claims["iat"] = clk.Now().Unix()
		return idp.SignRaw(t, claims, nil)
	}
	regular := mint()
	if _, err := authenticate(c, bearer(regular)); err != nil {
		t.Fatal(err)
	}
	reverified := 0
	for range 20 { // a client minting a new token per request, between the regular client's requests
		if _, err := authenticate(c, bearer(mint())); err != nil {
			t.Fatal(err)
		}
		before := cv.calls.Load()
		if _, err := authenticate(c, bearer(regular)); err != nil {
			t.Fatal(err)
		}
		reverified += int(cv.calls.Load() - before)
	}
	if reverified != 0 {
		t.Fatalf("the regular client's token was verified again %d times: the minting client evicted it", reverified)
	}
	if n := c.Len(); n != 3 {
		t.Fatalf("the cache holds %d entries, want its size 3", n)
	}
}

func TestTokenCacheForgetsTokensOfAKeyNoLongerHeld(t *testing.T) {
	t.Parallel()
	idp := devidptest.Start(t)
	v, _ := running(t, idp)
	cv := &counting{v: v}
	c, err := auth.NewTokenCache(cv, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	old := idp.Token(t, "reader")
	for range 2 {
		if _, err := authenticate(c, bearer(old)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := c.Cached(bearer(old)); !ok || cv.calls.Load() != 1 {
		t.Fatalf("the token is not cached (verifier ran %d times)", cv.calls.Load())
	}
	oldKid := idp.KeyID()
	idp.RotateKey(t)
	idp.RemoveKey(t, oldKid)
	deadline := time.Now().Add(10 * time.Second)
	for v.HoldsKey(oldKid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, ok := c.Cached(bearer(old)); ok {
		t.Fatal("the cache still serves a token whose key the provider removed")
	}
	if _, err := authenticate(c, bearer(old)); !problem.Is(err, problem.EUNAUTHORIZED) {
		t.Fatalf("Authenticate(token of a removed key) = %v, want 401", err)
	}
	if c.Len() != 0 {
		t.Fatalf("the cache keeps %d entries of the removed key", c.Len())
	}
}

// A key the provider replaced under the same kid is another key: a token
// it signed is refused, cached or not (a reviewer's cached token passed for
// as long as the kid stayed announced).
func TestTokenCacheForgetsTokensOfAKeyReplacedUnderItsKid(t *testing.T) {
	t.Parallel()
	idpA, idpB := devidptest.Start(t), devidptest.Start(t)
	jwks := &switchableJWKS{kid: "the-kid"}
	jwks.current.Store(idpA)
	srv := httptest.NewServer(jwks)
	t.Cleanup(srv.Close)
	v, _ := running(t, idpA, func(c *auth.Config) { c.JWKSURL, c.HTTPClient = srv.URL, srv.Client() })
	cv := &counting{v: v}
	c, err := auth.NewTokenCache(cv, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	header := map[string]any{"kid": "the-kid"}
	old := idpA.SignRaw(t, idpA.Claims(t, devidptest.Reader), header)
	for range 2 {
		if _, err := authenticate(c, bearer(old)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := c.Cached(bearer(old)); !ok || cv.calls.Load() != 1 {
		t.Fatalf("the token is not cached (verifier ran %d times)", cv.calls.Load())
	}
	jwks.current.Store(idpB)
	replaced := idpB.SignRaw(t, idpA.Claims(t, devidptest.Reader), header)
	eventually(t, "the verifier holds the replacing key", func() bool {
		_, err := v.Verify(context.Background(), replaced)
		return err == nil
	})
	if _, ok := c.Cached(bearer(old)); ok {
		t.Fatal("the cache still serves a token of the key the provider replaced under the same kid")
	}
	if _, err := authenticate(c, bearer(old)); !problem.Is(err, problem.EUNAUTHORIZED) {
		t.Fatalf("Authenticate(token of the replaced key) = %v, want 401", err)
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

// BenchmarkTokenCacheHit measures the cache on the gateway's hot path: a
// client reusing its token, many goroutines at once.
func BenchmarkTokenCacheHit(b *testing.B) {
	idp := devidptest.Start(b)
	v, err := auth.NewVerifier(idp.VerifierConfig())
	if err != nil {
		b.Fatal(err)
	}
	c, err := auth.NewTokenCache(v, 10000, nil)
	if err != nil {
		b.Fatal(err)
	}
	r := bearer(idp.Token(b, "reader"))
	if _, err := c.AuthenticateHeader(context.Background(), r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok := c.Cached(r); !ok {
				b.Error("miss")
				return
			}
		}
	})
}
