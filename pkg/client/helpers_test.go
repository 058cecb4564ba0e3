package client_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/server"
)

// api is a loopback API server that verifies every bearer token with
// pkg/auth against a real development identity provider, then serves the
// routes a test registers below the gateway prefixes /search and /go/v1.
type api struct {
	idp          *devidptest.IdP
	srv          *httptest.Server
	tokenFetches atomic.Int64
}

func newAPI(t testing.TB, routes func(g *gin.RouterGroup), opts ...devidptest.Option) *api {
	t.Helper()
	a := &api{idp: devidptest.Start(t, opts...)}
	engine := server.NewGin()
	routes(engine.Group("/", auth.Middleware(a.idp.Verifier(t))))
	a.srv = httptest.NewServer(server.Handler(server.Options{
		Logger: slog.New(slog.DiscardHandler), Metrics: server.NewMetrics(), App: engine, MaxBodyBytes: 1 << 20,
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// config returns a client configuration for the realm client clientID whose
// HTTP client counts the requests made to the token endpoint.
func (a *api) config(t testing.TB, clientID string) client.Config {
	t.Helper()
	rc, ok := a.idp.Realm().Client(clientID)
	if !ok {
		t.Fatalf("the realm has no client %q", clientID)
	}
	return client.Config{
		SearchBaseURL: a.srv.URL + "/search",
		JobsBaseURL:   a.srv.URL + "/go/v1",
		TokenURL:      a.idp.TokenURL(),
		ClientID:      clientID,
		ClientSecret:  rc.Secret,
		HTTPClient:    &http.Client{Timeout: 10 * time.Second, Transport: countTokens{a}},
	}
}

// countTokens counts the token requests that pass through it.
type countTokens struct{ a *api }

func (c countTokens) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.String() == c.a.idp.TokenURL() {
		c.a.tokenFetches.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mustClient builds a client of cfg.
func mustClient(t testing.TB, cfg client.Config) *client.Client {
	t.Helper()
	c, err := client.New(cfg)
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	return c
}

// reply is one scripted answer: a problem when err is set, else body as JSON.
type reply struct {
	status int
	header map[string]string
	err    *problem.Error
	body   any
}

// seen is what one request carried.
type seen struct {
	method, path, query, key, clientID string
	authorization                      string
	body                               []byte
}

// script answers requests with its replies in order, repeating the last,
// and records every request.
type script struct {
	mu      sync.Mutex
	replies []reply
	log     []seen
}

func newScript(replies ...reply) *script { return &script{replies: replies} }

func (s *script) handle(c *gin.Context) {
	body, _ := io.ReadAll(c.Request.Body)
	claims, _ := auth.ClaimsFrom(c.Request.Context())
	s.mu.Lock()
	s.log = append(s.log, seen{
		method: c.Request.Method, path: c.Request.URL.EscapedPath(), query: c.Request.URL.RawQuery,
		key: c.GetHeader(client.IdempotencyKeyHeader), clientID: claims.ClientID, body: body,
		authorization: c.GetHeader("Authorization"),
	})
	r := s.replies[min(len(s.log), len(s.replies))-1]
	s.mu.Unlock()
	for k, v := range r.header {
		c.Header(k, v)
	}
	if r.err != nil {
		problem.Abort(c, r.err)
		return
	}
	if r.body == nil {
		c.Status(r.status)
		return
	}
	c.JSON(r.status, r.body)
}

// requests returns what the requests so far carried.
func (s *script) requests() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.log...)
}

// routeAll sends every method and path below the group to s.
func routeAll(s *script) func(g *gin.RouterGroup) {
	return func(g *gin.RouterGroup) { g.Any("/*path", s.handle) }
}

// waits records the delays the client asked to sleep, without sleeping.
type waits struct {
	mu sync.Mutex
	ds []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.ds = append(w.ds, d)
	w.mu.Unlock()
	return ctx.Err()
}

func (w *waits) list() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.ds...)
}

// halfJitter makes full jitter deterministic: half of the ceiling.
func halfJitter(ceiling time.Duration) time.Duration { return ceiling / 2 }

// fixedClock makes the client's clock read now, records waits in w, and
// halves every jitter ceiling.
func fixedClock(cfg *client.Config, now time.Time, w *waits) {
	cfg.Now = func() time.Time { return now }
	cfg.Sleep = w.sleep
	cfg.Jitter = halfJitter
}

func rateLimited(header map[string]string) reply {
	e := problem.Errorf(problem.ERATELIMIT, "slow down")
	return reply{status: http.StatusTooManyRequests, header: header, err: e}
}

func unavailable(header map[string]string) reply {
	return reply{status: http.StatusServiceUnavailable, header: header, err: problem.Errorf(problem.EUNAVAILABLE, "a dependency is down")}
}

func unauthorized() reply {
	return reply{status: http.StatusUnauthorized, err: problem.Errorf(problem.EUNAUTHORIZED, "the token is no longer accepted")}
}

// busy is a service's answer while the first request with the same
// Idempotency-Key is still running.
func busy(header map[string]string) reply {
	return reply{status: http.StatusConflict, header: header, err: problem.Errorf(problem.ECONFLICT, "a request with this key is in progress")}
}

func ok(status int, body any) reply { return reply{status: status, body: body} }

func notFound() *problem.Error {
	return problem.Errorf(problem.ENOTFOUND, "there is no emprego with this id")
}

func internal() *problem.Error { return problem.Wrap(problem.EINTERNAL, errors.New("boom"), "") }
