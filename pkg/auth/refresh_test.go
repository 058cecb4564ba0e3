package auth_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/polltest"
	"github.com/municipal-apis/platform/pkg/problem"
)

// running starts a verifier of idp on the real clock with a short refresh
// schedule, runs it until the test ends, and returns it with its log.
func running(t *testing.T, idp *devidptest.IdP, edit ...func(*auth.Config)) (*auth.Verifier, *logtest.Buffer) {
	t.Helper()
	logs := &logtest.Buffer{}
	cfg := idp.VerifierConfig()
	cfg.RefreshInterval, cfg.RefetchCooldown = 200*time.Millisecond, 50*time.Millisecond
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	for _, e := range edit {
		e(&cfg)
	}
	v, err := auth.NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); v.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return v, logs
}

// eventually polls cond until it holds, for up to 15 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	polltest.Until(t, 15*time.Second, what, cond)
}

// gauge returns the value of the sample name{labels} c collects, or -1.
func gauge(t *testing.T, c prometheus.Collector, name string, labels ...string) float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			for i, l := range m.GetLabel() {
				if 2*i+1 >= len(labels) || l.GetName() != labels[2*i] || l.GetValue() != labels[2*i+1] {
					continue metrics
				}
			}
			if m.GetGauge() != nil {
				return m.GetGauge().GetValue()
			}
			return m.GetCounter().GetValue()
		}
	}
	return -1
}

func TestAKeyTheProviderStopsAnnouncingIsDroppedWithinOneRefresh(t *testing.T) {
	idp := devidptest.Start(t)
	v, logs := running(t, idp)
	ctx := context.Background()
	oldKid := idp.KeyID()
	old := idp.Token(t, devidptest.Reader)
	c, err := v.Verify(ctx, old)
	if err != nil || c.KeyID != oldKid {
		t.Fatalf("Verify before the rotation = %+v, %v; want claims with KeyID %s", c, err, oldKid)
	}

	newKid := idp.RotateKey(t)
	eventually(t, "the verifier holds the new key", func() bool { return v.HoldsKey(newKid) })
	if c, err := v.Verify(ctx, idp.Token(t, devidptest.Reader)); err != nil || c.KeyID != newKid {
		t.Fatalf("a token of the new key: %+v, %v", c, err)
	}
	if _, err := v.Verify(ctx, old); err != nil {
		t.Fatalf("the old key is still announced, yet its token is refused: %v", err)
	}

	idp.RemoveKey(t, oldKid)
	eventually(t, "the verifier drops the removed key", func() bool { return !v.HoldsKey(oldKid) })
	_, err = v.Verify(ctx, old)
	if pe := mustProblem(t, err, problem.EUNAUTHORIZED); pe.Detail != "the token is signed with an unknown key" {
		t.Errorf("detail = %q", pe.Detail)
	}
	if !v.HoldsKey(newKid) {
		t.Error("the new key was dropped too")
	}
	if n := countIn(logs, "signing keys changed"); n < 2 {
		t.Errorf("key changes logged %d times, want the addition and the removal", n)
	}
}

// cachedJWKS serves idp's JWKS with a Cache-Control header and counts fetches.
type cachedJWKS struct {
	idp          *devidptest.IdP
	cacheControl string
	later        atomic.Pointer[string] // replaces cacheControl once set
	hits         atomic.Int64
}

func (c *cachedJWKS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.hits.Add(1)
	resp, err := c.idp.HTTPClient().Get(c.idp.JWKSURL())
	if err != nil {
		http.Error(w, "down", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	cc := c.cacheControl
	if later := c.later.Load(); later != nil {
		cc = *later
	}
	w.Header().Set("Cache-Control", cc)
	_, _ = io.Copy(w, resp.Body)
}

func TestTheRefreshHonoursAShorterMaxAgeButNotBelowTheCooldown(t *testing.T) {
	idp := devidptest.Start(t)
	tests := []struct {
		name         string
		cacheControl string
		cooldown     time.Duration
		check        func(t *testing.T, hits func() int64)
	}{
		{"max-age=1 refreshes about every second, though the interval is an hour", "public, max-age=1", 100 * time.Millisecond, func(t *testing.T, hits func() int64) {
			eventually(t, "three fetches", func() bool { return hits() >= 3 })
		}},
		{"max-age=0 refreshes no more often than the cooldown", "max-age=0", 500 * time.Millisecond, func(t *testing.T, hits func() int64) {
			start := time.Now()
			eventually(t, "a second fetch", func() bool { return hits() >= 2 })
			time.Sleep(time.Second)
			if most := int64(time.Since(start)/(500*time.Millisecond)) + 2; hits() > most {
				t.Fatalf("%d fetches in %s, more than one per 500ms cooldown", hits(), time.Since(start))
			}
		}},
		{"no-cache leaves the interval in charge", "no-cache", 100 * time.Millisecond, func(t *testing.T, hits func() int64) {
			eventually(t, "the first fetch", func() bool { return hits() >= 1 })
			time.Sleep(time.Second)
			if hits() != 1 {
				t.Fatalf("%d fetches within a second of an hourly interval", hits())
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jwks := &cachedJWKS{idp: idp, cacheControl: tt.cacheControl}
			srv := httptest.NewServer(jwks)
			t.Cleanup(srv.Close)
			running(t, idp, func(c *auth.Config) {
				c.JWKSURL, c.RefreshInterval, c.RefetchCooldown, c.HTTPClient = srv.URL, time.Hour, tt.cooldown, srv.Client()
			})
			tt.check(t, jwks.hits.Load)
		})
	}
}

// A max-age that first comes with a refetch for an unknown kid, not with a
// scheduled one, rules the schedule from then on (a reviewer's gateway
// fetched nothing for a minute after max-age=1 came that way, with a
// 5-minute interval, and kept a removed key that long).
func TestAMaxAgeLearnedOnARefetchForAnUnknownKidRulesTheSchedule(t *testing.T) {
	idp := devidptest.Start(t)
	jwks := &cachedJWKS{idp: idp}
	srv := httptest.NewServer(jwks)
	t.Cleanup(srv.Close)
	v, _ := running(t, idp, func(c *auth.Config) {
		c.JWKSURL, c.RefreshInterval, c.RefetchCooldown, c.HTTPClient = srv.URL, time.Hour, 100*time.Millisecond, srv.Client()
	})
	eventually(t, "the first fetch", func() bool { return jwks.hits.Load() >= 1 })
	maxAge := "max-age=1"
	jwks.later.Store(&maxAge)
	time.Sleep(200 * time.Millisecond) // past the cooldown
	unknown := idp.SignRaw(t, idp.Claims(t, devidptest.Reader), map[string]any{"kid": "unknown-kid"})
	if _, err := v.Verify(context.Background(), unknown); !problem.Is(err, problem.EUNAUTHORIZED) {
		t.Fatalf("a token of an unknown kid: %v, want 401", err)
	}
	if n := jwks.hits.Load(); n != 2 {
		t.Fatalf("%d fetches, want the first and the one for the unknown kid", n)
	}
	eventually(t, "fetches about every second after max-age=1", func() bool { return jwks.hits.Load() >= 4 })
}

func TestAnIdentityProviderOutageLeavesTheHeldKeysWorking(t *testing.T) {
	idp := devidptest.Start(t)
	v, logs := running(t, idp)
	ctx := context.Background()
	seen := idp.Token(t, devidptest.JobsAdmin)
	if _, err := v.Verify(ctx, seen); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the verifier is fresh", func() bool { return v.Ping(ctx) == nil })
	metrics := v.Collector()

	idp.Stop(t)
	var ke *auth.KeysError
	eventually(t, "Ping reports stale keys", func() bool { return errors.As(v.Ping(ctx), &ke) })
	if !ke.Stale || !ke.Degraded() || ke.ProbeCause() != auth.CauseUnreachable {
		t.Fatalf("Ping during the outage = %+v (cause %s), want stale keys, unreachable", ke, ke.ProbeCause())
	}
	unseen := idp.SignRaw(t, idp.Claims(t, devidptest.Reader), nil)
	for name, tok := range map[string]string{"a token verified before": seen, "a token never seen, signed by a held key": unseen} {
		if _, err := v.Verify(ctx, tok); err != nil {
			t.Errorf("%s is refused during the outage: %v", name, err)
		}
	}
	eventually(t, "several failed refreshes", func() bool { return gauge(t, metrics, "oidc_jwks_fetches_total", "result", "error") >= 3 })
	if got := gauge(t, metrics, "oidc_jwks_stale"); got != 1 {
		t.Errorf("oidc_jwks_stale = %v during the outage, want 1", got)
	}
	if got := gauge(t, metrics, "oidc_jwks_keys"); got != 1 {
		t.Errorf("oidc_jwks_keys = %v during the outage, want the 1 held", got)
	}
	if n := countIn(logs, "the identity provider cannot be reached"); n != 1 {
		t.Errorf("the outage was logged %d times, want once", n)
	}

	idp.Resume(t)
	eventually(t, "Ping is ok again", func() bool { return v.Ping(ctx) == nil })
	if got := gauge(t, metrics, "oidc_jwks_stale"); got != 0 {
		t.Errorf("oidc_jwks_stale = %v after the outage, want 0", got)
	}
	if n := countIn(logs, "the identity provider answers again"); n != 1 {
		t.Errorf("the recovery was logged %d times, want once", n)
	}
}

func TestHoldsKeyFor(t *testing.T) {
	idp := devidptest.Start(t)
	v := newVerifier(t, idp, newClock(time.Now()))
	claims := idp.Claims(t, devidptest.Reader)
	if _, err := v.Verify(context.Background(), idp.Token(t, devidptest.Reader)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		auth []string
		want bool
	}{
		{"a fresh token of a held key", []string{"Bearer " + idp.SignRaw(t, claims, nil)}, true},
		{"a forged signature under a held key (checking it costs no fetch)", []string{"Bearer " + tamper(t, idp.SignRaw(t, claims, nil), map[string]any{"scope": "x"})}, true},
		{"an unknown kid", []string{"Bearer " + idp.SignRaw(t, claims, map[string]any{"kid": "unknown"})}, false},
		{"no kid", []string{"Bearer " + idp.SignRaw(t, claims, map[string]any{"kid": nil})}, false},
		{"a held kid with another algorithm", []string{"Bearer " + idp.SignRaw(t, claims, map[string]any{"alg": "ES256"})}, false},
		{"garbage", []string{"Bearer not-a-jwt"}, false},
		{"no Authorization header", nil, false},
		{"two Authorization headers", []string{"Bearer " + idp.SignRaw(t, claims, nil), "Bearer " + idp.SignRaw(t, claims, nil)}, false},
		{"the Basic scheme", []string{"Basic " + idp.SignRaw(t, claims, nil)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := v.HoldsKeyFor(request(tt.auth...)); got != tt.want {
				t.Fatalf("HoldsKeyFor = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestConfigIsReadFromTheEnvironment(t *testing.T) {
	var cfg auth.Config
	err := envconfig.ProcessWith(context.Background(), &envconfig.Config{Target: &cfg, Lookuper: envconfig.MapLookuper(map[string]string{
		"OIDC_ISSUER_URL": "https://id.example/auth/realms/municipal", "OIDC_JWKS_URL": "http://keycloak:8080/certs",
		"OIDC_JWKS_REFRESH_INTERVAL": "1m", "OIDC_CLOCK_SKEW": "10s", "OIDC_MAX_TOKEN_LIFETIME": "1h",
	})})
	if err != nil {
		t.Fatal(err)
	}
	want := auth.Config{IssuerURL: "https://id.example/auth/realms/municipal", JWKSURL: "http://keycloak:8080/certs", Audience: "api-gateway",
		RefreshInterval: time.Minute, ClockSkew: 10 * time.Second, MaxTokenLifetime: time.Hour}
	if cfg.IssuerURL != want.IssuerURL || cfg.JWKSURL != want.JWKSURL || cfg.Audience != want.Audience || cfg.RefreshInterval != want.RefreshInterval ||
		cfg.ClockSkew != want.ClockSkew || cfg.MaxTokenLifetime != want.MaxTokenLifetime {
		t.Errorf("config = %+v, want %+v", cfg, want)
	}
	if cfg.HTTPClient != nil || cfg.Logger != nil || cfg.Now != nil {
		t.Error("the environment filled in a dependency that is not a setting")
	}
	var defaults auth.Config
	if err := envconfig.ProcessWith(context.Background(), &envconfig.Config{Target: &defaults, Lookuper: envconfig.MapLookuper(nil)}); err != nil {
		t.Fatal(err)
	}
	if defaults.IssuerURL != auth.DefaultIssuerURL || defaults.RefreshInterval != auth.DefaultRefreshInterval ||
		defaults.ClockSkew != auth.DefaultClockSkew || defaults.MaxTokenLifetime != auth.DefaultMaxTokenLifetime || defaults.Validate() != nil {
		t.Errorf("defaults = %+v", defaults)
	}
}

// countIn counts the occurrences of s in logs.
func countIn(logs *logtest.Buffer, s string) int { return strings.Count(logs.String(), s) }
