package gateway_test

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/redistest"
)

func TestUnauthenticatedRequestsCarryRateLimitHeaders(t *testing.T) {
	t.Parallel()
	h := start(t, withEnv("RATE_LIMIT_UNAUTHENTICATED", "100-M"))
	expired := h.idp.Claims(t, "jobs-admin")
	expired["exp"] = time.Now().Add(-time.Hour).Unix()
	tests := []struct {
		name   string
		header []string
	}{
		{"a request without a token", nil},
		{"a request with a garbage token", []string{"Authorization", "Bearer not-a-jwt"}},
		{"a request with an expired token", []string{"Authorization", "Bearer " + h.idp.SignRaw(t, expired, nil)}},
		{"a request with a Basic credential", []string{"Authorization", "Basic dXNlcjpwYXNz"}},
		{"a request with an unsigned token", []string{"Authorization", "Bearer " + devidptest.Unsigned(t, h.idp.Claims(t, "jobs-admin"), nil)}},
	}
	for i, tt := range tests {
		t.Run(tt.name+" is a 401 with rate-limit headers", func(t *testing.T) {
			resp, body := h.get(t, "/go/v1/api/v1/empregos", "", tt.header...)
			problemBody(t, resp, body, http.StatusUnauthorized)
			assertRateLimitHeaders(t, resp)
			if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate = %q", resp.Header.Get("WWW-Authenticate"))
			}
			if got, want := resp.Header.Get("X-RateLimit-Remaining"), itoa(100-i-1); got != want {
				t.Errorf("X-RateLimit-Remaining = %s, want %s", got, want)
			}
			if got := resp.Header.Get("RateLimit-Policy"); got != `"ip";q=100;w=60` {
				t.Errorf("RateLimit-Policy = %q", got)
			}
		})
	}
	if n := len(h.jobs.requests()); n != 0 {
		t.Fatalf("the upstream received %d unauthenticated requests", n)
	}
}

func TestClientAndDepartmentLimits(t *testing.T) {
	t.Parallel()
	h := start(t, withEnv("RATE_LIMIT_PER_CLIENT", "5-M", "RATE_LIMIT_PER_DEPARTMENT", "8-M"))
	catalog, reader := h.idp.Token(t, "catalog-admin"), h.idp.Token(t, "reader")
	other := h.idp.Token(t, "other-dept")
	const path = "/search/api/v1/admin/migration/schemas"

	t.Run("a client's first five requests pass", func(t *testing.T) {
		for i := range 5 {
			resp, body := h.get(t, path, catalog)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("request %d: status %d; body %s", i+1, resp.StatusCode, body)
			}
			assertRateLimitHeaders(t, resp)
		}
	})
	t.Run("the sixth request of the client is a 429 with Retry-After", func(t *testing.T) {
		resp, body := h.get(t, path, catalog)
		p := problemBody(t, resp, body, http.StatusTooManyRequests)
		assertRateLimitHeaders(t, resp)
		retry := atoi(resp.Header.Get("Retry-After"))
		if retry < 1 || retry > 60 {
			t.Errorf("Retry-After = %q, want 1..60 seconds", resp.Header.Get("Retry-After"))
		}
		if resp.Header.Get("X-RateLimit-Limit") != "5" || resp.Header.Get("X-RateLimit-Remaining") != "0" {
			t.Errorf("limit headers %s/%s, want 5/0", resp.Header.Get("X-RateLimit-Limit"), resp.Header.Get("X-RateLimit-Remaining"))
		}
		if !strings.Contains(p["detail"].(string), "client") {
			t.Errorf("detail %q does not name the client limit", p["detail"])
		}
	})
	t.Run("a second client of the department gets only what is left of the department", func(t *testing.T) {
		for i := range 3 {
			if resp, body := h.get(t, path, reader); resp.StatusCode != http.StatusOK {
				t.Fatalf("request %d: status %d; body %s", i+1, resp.StatusCode, body)
			}
		}
		resp, body := h.get(t, path, reader)
		p := problemBody(t, resp, body, http.StatusTooManyRequests)
		if resp.Header.Get("X-RateLimit-Limit") != "8" || !strings.Contains(p["detail"].(string), "department") {
			t.Errorf("limit %s, detail %q; want the department's 8", resp.Header.Get("X-RateLimit-Limit"), p["detail"])
		}
	})
	t.Run("a client of another department is unaffected", func(t *testing.T) {
		resp, body := h.get(t, "/go/v1/api/v1/empregos", other)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d; body %s", resp.StatusCode, body)
		}
		if resp.Header.Get("X-RateLimit-Remaining") != "4" {
			t.Errorf("X-RateLimit-Remaining = %s, want the fresh client's 4", resp.Header.Get("X-RateLimit-Remaining"))
		}
	})
	if n := len(h.search.requests()); n != 8 {
		t.Fatalf("the upstream received %d requests, want the 8 that were allowed", n)
	}
	// The access log names whom each line concerns, and the limit of a 429
	// (the operators' runbook looks for them there).
	log := h.logs.String()
	for _, want := range []string{
		`"status":200,"bytes":`,
		`"client_id":"catalog-admin","department":"planejamento","request_id"`,
		`"status":429,`,
		`"client_id":"catalog-admin","department":"planejamento","limit":"client","request_id"`,
		`"client_id":"reader","department":"planejamento","limit":"department","request_id"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the access log lacks %s:\n%s", want, log)
		}
	}
}

func TestDepartmentOverride(t *testing.T) {
	t.Parallel()
	h := start(t, withEnv("RATE_LIMIT_PER_DEPARTMENT", "100-M", "RATE_LIMIT_DEPARTMENT_OVERRIDES", "educacao=2-M"))
	token := h.idp.Token(t, "other-dept")
	for i := range 2 {
		if resp, _ := h.get(t, "/go/v1/api/v1/empregos", token); resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: status %d", i+1, resp.StatusCode)
		}
	}
	resp, body := h.get(t, "/go/v1/api/v1/empregos", token)
	problemBody(t, resp, body, http.StatusTooManyRequests)
	if resp.Header.Get("X-RateLimit-Limit") != "2" {
		t.Fatalf("X-RateLimit-Limit = %s, want the override's 2", resp.Header.Get("X-RateLimit-Limit"))
	}
}

func TestUnauthenticatedFloodStopsAtTheAddressLimit(t *testing.T) {
	t.Parallel()
	h := start(t,
		withEnv("RATE_LIMIT_UNAUTHENTICATED", "3-M"),
		withAuth(func(c *auth.Config) { c.RefetchCooldown = time.Nanosecond }))
	forged := h.idp.SignRaw(t, h.idp.Claims(t, "jobs-admin"), map[string]any{"kid": "forged-key-id"})
	known := h.idp.Token(t, "reader")
	if resp, _ := h.get(t, "/go/v1/api/v1/empregos", known); resp.StatusCode != http.StatusOK {
		t.Fatalf("a valid token before the flood got %d", resp.StatusCode)
	}

	for i := range 3 {
		resp, body := h.get(t, "/go/v1/api/v1/empregos", forged, "X-Forwarded-For", "198.51.100."+itoa(i))
		problemBody(t, resp, body, http.StatusUnauthorized)
	}
	atLimit := h.idp.JWKSFetches()
	if atLimit == 0 {
		t.Fatal("tokens with an unknown key id never made the verifier fetch the JWKS; the test proves nothing")
	}
	// Until the window ends the address is refused whatever would cost a
	// JWKS fetch (an unknown kid) or a look at garbage.
	for i := range 20 {
		for _, tok := range []string{forged, "not-a-jwt", ""} {
			resp, body := h.get(t, "/go/v1/api/v1/empregos", tok, "X-Forwarded-For", "203.0.113."+itoa(i))
			problemBody(t, resp, body, http.StatusTooManyRequests)
			assertRateLimitHeaders(t, resp)
			if resp.Header.Get("Retry-After") == "" {
				t.Fatal("a 429 without Retry-After")
			}
		}
	}
	if got := h.idp.JWKSFetches(); got != atLimit {
		t.Fatalf("the identity provider served %d JWKS fetches during the flood, want none", got-atLimit)
	}
	// A token whose key the gateway holds costs no request to the identity
	// provider: valid tokens of the same office keep passing, seen or new.
	for name, tok := range map[string]string{"an already verified token": known, "a fresh valid token": h.idp.Token(t, "jobs-admin")} {
		if resp, body := h.get(t, "/go/v1/api/v1/empregos", tok); resp.StatusCode != http.StatusOK {
			t.Fatalf("%s from the flooding address got %d; body %s", name, resp.StatusCode, body)
		}
	}
	// A token under a held kid with a bad signature is checked, refused and
	// counted; the address stays over its limit.
	bad := h.idp.SignRaw(t, h.idp.Claims(t, "jobs-admin"), nil)
	bad = bad[:len(bad)-4] + "AAAA"
	resp, body := h.get(t, "/go/v1/api/v1/empregos", bad)
	problemBody(t, resp, body, http.StatusUnauthorized)
	if n := len(h.jobs.requests()); n != 3 {
		t.Fatalf("the upstream received %d requests, want the 3 with valid tokens", n)
	}
}

func TestRedisOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: stops and restarts a Redis server; skipped under -short")
	}
	t.Parallel()
	srv := redistest.Start(t)
	prefix := "gwtest-" + randomHex(t)
	h := start(t, withEnv("REDIS_URL", srv.URL(), "RATE_LIMIT_KEY_PREFIX", prefix, "RATE_LIMIT_PER_CLIENT", "3-M"))
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	token := h.idp.Token(t, "jobs-admin")
	const path = "/go/v1/api/v1/empregos"
	waitFor(t, "the gateway uses redis", func() bool { return metric(t, h, "gateway_ratelimit_fallback") == "0" })

	if resp, _ := h.get(t, path, token); resp.StatusCode != http.StatusOK {
		t.Fatalf("before the outage: status %d", resp.StatusCode)
	}
	if n, _ := rdb.Get(t.Context(), prefix+":{client:jobs-admin}").Int(); n != 1 {
		t.Fatalf("redis counter = %d, want 1", n)
	}

	srv.Stop(t)
	for i := range 3 {
		resp, body := h.get(t, path, token)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d during the outage: status %d; body %s", i+1, resp.StatusCode, body)
		}
		assertRateLimitHeaders(t, resp)
	}
	resp, body := h.get(t, path, token)
	problemBody(t, resp, body, http.StatusTooManyRequests)
	if got := metric(t, h, "gateway_ratelimit_fallback"); got != "1" {
		t.Fatalf("fallback gauge = %s during the outage, want 1", got)
	}
	ready, readyBody := h.admin(t, "/readyz")
	if ready.StatusCode != http.StatusOK || !strings.Contains(readyBody, `"degraded"`) || !strings.Contains(readyBody, `"redis":"degraded`) {
		t.Fatalf("/readyz during the outage: %d %s; want 200 degraded", ready.StatusCode, readyBody)
	}
	if n := strings.Count(h.logs.String(), "redis is unreachable"); n != 1 {
		t.Fatalf("the outage was logged %d times, want once", n)
	}

	srv.Restart(t)
	waitFor(t, "the gateway returns to redis", func() bool { return metric(t, h, "gateway_ratelimit_fallback") == "0" })
	if resp, _ := h.get(t, path, token); resp.StatusCode != http.StatusOK {
		t.Fatalf("after the restart: status %d", resp.StatusCode)
	}
	if n, err := rdb.Get(t.Context(), prefix+":{client:jobs-admin}").Int(); n != 1 {
		t.Fatalf("counter in the restarted redis = %d (%v), want 1", n, err)
	}
}

func TestLimitsOffStillRequireATokenAndSetNoHeaders(t *testing.T) {
	t.Parallel()
	h := start(t, withEnv("RATE_LIMIT_ENABLED", "false", "RATE_LIMIT_PER_CLIENT", "1-M", "REDIS_URL", "redis://127.0.0.1:1/0"))
	resp, body := h.get(t, "/search/api", "")
	problemBody(t, resp, body, http.StatusUnauthorized)
	token := h.idp.Token(t, "reader")
	for range 3 {
		resp, _ = h.get(t, "/search/api", token)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("X-RateLimit-Limit") != "" {
			t.Fatalf("with limits off: status %d, X-RateLimit-Limit %q", resp.StatusCode, resp.Header.Get("X-RateLimit-Limit"))
		}
	}
	ready, readyBody := h.admin(t, "/readyz")
	if ready.StatusCode != http.StatusOK || strings.Contains(readyBody, "redis") {
		t.Fatalf("/readyz with limits off: %d %s", ready.StatusCode, readyBody)
	}
}

// Two gateways sharing one Redis hold a small limit exactly between them,
// whichever of them the requests reach.
func TestTwoGatewaysShareASmallLimitExactly(t *testing.T) {
	t.Parallel()
	prefix := "gwtest-" + randomHex(t)
	var gws [2]*harness
	for i := range gws {
		gws[i] = start(t, withEnv("RATE_LIMIT_KEY_PREFIX", prefix, "RATE_LIMIT_PER_CLIENT", "5-M"))
	}
	tokens := [2]string{gws[0].idp.Token(t, "jobs-admin"), gws[1].idp.Token(t, "jobs-admin")}
	var wg sync.WaitGroup
	var admitted, refused atomic.Int32
	for i := range 20 {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodGet, gws[i%2].base+"/go/v1/api/v1/empregos", nil)
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("Authorization", "Bearer "+tokens[i%2])
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			_ = resp.Body.Close()
			switch resp.StatusCode {
			case http.StatusOK:
				admitted.Add(1)
			case http.StatusTooManyRequests:
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	if admitted.Load() != 5 || refused.Load() != 15 {
		t.Fatalf("two gateways admitted %d and refused %d of 20 requests under a 5-M client limit, want 5 and 15", admitted.Load(), refused.Load())
	}
}
