package client_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

func TestRetryWaits(t *testing.T) {
	t.Parallel()
	now := time.Now().Truncate(time.Second)
	okBody := ok(http.StatusOK, map[string]any{"id": 7, "titulo": "Pedreiro", "tipo_contratacao": "CLT"})
	h := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	// With BaseDelay 200ms and jitter fixed at half its ceiling, a server
	// hint waits hint+100ms and backoff waits 100ms, 200ms, 400ms...
	tests := []struct {
		name    string
		replies []reply
		want    []time.Duration
	}{
		{"a 429 with Retry-After in seconds waits that long, then succeeds",
			[]reply{rateLimited(h("Retry-After", "2")), okBody}, []time.Duration{2100 * time.Millisecond}},
		{"a 429 with Retry-After as an HTTP date waits until that date",
			[]reply{rateLimited(h("Retry-After", now.Add(3*time.Second).UTC().Format(http.TimeFormat))), okBody}, []time.Duration{3100 * time.Millisecond}},
		{"a 429 without Retry-After waits until X-RateLimit-Reset",
			[]reply{rateLimited(h("X-RateLimit-Reset", strconv.FormatInt(now.Add(5*time.Second).Unix(), 10))), okBody}, []time.Duration{5100 * time.Millisecond}},
		{"Retry-After wins over X-RateLimit-Reset",
			[]reply{rateLimited(h("Retry-After", "1", "X-RateLimit-Reset", strconv.FormatInt(now.Add(40*time.Second).Unix(), 10))), okBody}, []time.Duration{1100 * time.Millisecond}},
		{"a reset already past waits only the jitter",
			[]reply{rateLimited(h("X-RateLimit-Reset", strconv.FormatInt(now.Add(-time.Minute).Unix(), 10))), okBody}, []time.Duration{100 * time.Millisecond}},
		{"a 429 with malformed hints backs off with full jitter",
			[]reply{rateLimited(h("Retry-After", "soon", "X-RateLimit-Reset", "later")), okBody}, []time.Duration{100 * time.Millisecond}},
		{"503s without hints back off exponentially",
			[]reply{unavailable(nil), unavailable(nil), unavailable(nil), okBody}, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}},
		{"a 503 ignores X-RateLimit-Reset, which describes a limit that was not hit",
			[]reply{unavailable(h("X-RateLimit-Reset", strconv.FormatInt(now.Add(30*time.Second).Unix(), 10))), okBody}, []time.Duration{100 * time.Millisecond}},
		{"a 503 with Retry-After waits that long",
			[]reply{unavailable(h("Retry-After", "4")), okBody}, []time.Duration{4100 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newScript(tt.replies...)
			a := newAPI(t, routeAll(s))
			cfg := a.config(t, devidptest.JobsAdmin)
			var w waits
			fixedClock(&cfg, now, &w)
			c := mustClient(t, cfg)

			e, err := c.GetEmprego(context.Background(), 7)
			if err != nil {
				t.Fatalf("GetEmprego: %v", err)
			}
			if e.ID != 7 || e.Titulo != "Pedreiro" {
				t.Errorf("emprego = %+v, want the final answer", e)
			}
			if got := w.list(); !slices.Equal(got, tt.want) {
				t.Errorf("waits = %v, want %v", got, tt.want)
			}
			if got, want := len(s.requests()), len(tt.want)+1; got != want {
				t.Errorf("requests = %d, want %d", got, want)
			}
		})
	}
}

func TestRetryGivesUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		replies  []reply
		policy   client.RetryPolicy
		deadline time.Duration
		wantReqs int
		is       func(error) bool
	}{
		{"attempts stop at MaxAttempts and the last 429 is returned",
			[]reply{rateLimited(map[string]string{"Retry-After": "1"})}, client.RetryPolicy{MaxAttempts: 3}, 0, 3, client.IsRateLimited},
		{"a Retry-After longer than MaxWait is returned at once",
			[]reply{rateLimited(map[string]string{"Retry-After": "3600"})}, client.RetryPolicy{}, 0, 1, client.IsRateLimited},
		{"a wait that would outlast the context deadline is not started",
			[]reply{unavailable(map[string]string{"Retry-After": "30"})}, client.RetryPolicy{}, 25 * time.Second, 1, client.IsUnavailable},
		{"a 404 is not retried",
			[]reply{{status: http.StatusNotFound, err: notFound()}}, client.RetryPolicy{}, 0, 1, client.IsNotFound},
		{"a 500 is not retried",
			[]reply{{status: http.StatusInternalServerError, err: internal()}}, client.RetryPolicy{}, 0, 1, func(err error) bool { return client.StatusOf(err) == 500 }},
		{"MaxAttempts 1 disables retries",
			[]reply{unavailable(nil), ok(http.StatusOK, map[string]any{})}, client.RetryPolicy{MaxAttempts: 1}, 0, 1, client.IsUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newScript(tt.replies...)
			a := newAPI(t, routeAll(s))
			cfg := a.config(t, devidptest.JobsAdmin)
			cfg.Retry = tt.policy
			var w waits
			// The clock the client reads stands still at the moment the
			// request starts; the deadline is real time, so it leaves the
			// token fetch room on a loaded machine and still ends before
			// the 30-second Retry-After.
			now := time.Now()
			fixedClock(&cfg, now, &w)
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, now.Add(tt.deadline))
				defer cancel()
			}
			_, err := mustClient(t, cfg).GetEmprego(ctx, 1)
			if !tt.is(err) {
				t.Fatalf("err = %v, not the expected kind", err)
			}
			var apiErr *client.Error
			if !errors.As(err, &apiErr) || apiErr.Attempts != tt.wantReqs {
				t.Errorf("err = %#v, want an *Error counting %d attempts", err, tt.wantReqs)
			}
			if got := len(s.requests()); got != tt.wantReqs {
				t.Errorf("requests = %d, want %d", got, tt.wantReqs)
			}
			if got := len(w.list()); got != tt.wantReqs-1 {
				t.Errorf("waits = %d, want %d", got, tt.wantReqs-1)
			}
		})
	}
}

func TestCancellingTheContextStopsRetries(t *testing.T) {
	t.Parallel()
	s := newScript(unavailable(map[string]string{"Retry-After": "30"}))
	a := newAPI(t, routeAll(s))
	cfg := a.config(t, devidptest.JobsAdmin)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var retries []client.Retry
	cfg.OnRetry = func(r client.Retry) {
		retries = append(retries, r)
		cancel()
	}
	start := time.Now()
	_, err := mustClient(t, cfg).ListEmpregos(ctx, client.ListOptions{})
	if !errors.Is(err, context.Canceled) || !client.IsUnavailable(err) {
		t.Fatalf("err = %v, want context.Canceled joined with the 503", err)
	}
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("the call took %v; the 30 s wait was not interrupted", elapsed)
	}
	if len(s.requests()) != 1 || len(retries) != 1 {
		t.Errorf("requests = %d, retries = %d, want 1 and 1", len(s.requests()), len(retries))
	}
	if r := retries[0]; r.Status != http.StatusServiceUnavailable || r.Attempt != 1 || r.Delay < 30*time.Second {
		t.Errorf("OnRetry got %+v, want attempt 1 of a 503 waiting at least 30s", r)
	}
}

func TestDroppedConnectionsAreRetriedForSafeRequests(t *testing.T) {
	t.Parallel()
	var drops int
	s := newScript(ok(http.StatusOK, map[string]any{"id": 3, "nivel": "Superior"}))
	a := newAPI(t, routeAll(s))
	cfg := a.config(t, devidptest.JobsAdmin)
	var w waits
	fixedClock(&cfg, time.Now(), &w)
	inner := cfg.HTTPClient.Transport
	cfg.HTTPClient.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Path != "/go/v1/api/v1/escolaridades/3" || drops >= 2 {
			return inner.RoundTrip(r)
		}
		drops++
		return nil, errors.New("connection reset by peer")
	})
	e, err := mustClient(t, cfg).UpdateEscolaridade(context.Background(), 3, &client.Escolaridade{Nivel: "Superior"})
	if err != nil || e.Nivel != "Superior" {
		t.Fatalf("UpdateEscolaridade = %+v, %v; want success after two dropped connections", e, err)
	}
	if got := w.list(); !slices.Equal(got, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}) {
		t.Errorf("waits = %v, want exponential backoff", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
