package gateway_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/gateway/internal/app"
	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/polltest"
	"github.com/municipal-apis/platform/pkg/redistest"
	"github.com/municipal-apis/platform/pkg/server"
)

// seen is what an upstream received.
type seen struct {
	Method     string
	RequestURI string
	Path       string
	Query      string
	Header     http.Header
	Body       string
}

// upstream is a trivial service that records what it receives and answers
// with the status and headers the test asks for in X-Test-Status.
type upstream struct {
	name string
	srv  *httptest.Server
	mu   sync.Mutex
	hits []seen
}

func newUpstream(t testing.TB, name string) *upstream {
	t.Helper()
	u := &upstream{name: name}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s := seen{Method: r.Method, RequestURI: r.RequestURI, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)}
	u.mu.Lock()
	u.hits = append(u.hits, s)
	u.mu.Unlock()
	w.Header().Set("X-Upstream", u.name)
	w.Header().Set("Content-Type", "application/json")
	status := http.StatusOK
	if code := r.Header.Get("X-Test-Status"); code != "" {
		status = atoi(code)
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"upstream": u.name, "body": string(body)})
}

// requests returns what the upstream has received so far.
func (u *upstream) requests() []seen {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]seen(nil), u.hits...)
}

// last returns the last request the upstream received, failing when there is none.
func (u *upstream) last(t *testing.T) seen {
	t.Helper()
	hits := u.requests()
	if len(hits) == 0 {
		t.Fatalf("upstream %s received nothing", u.name)
	}
	return hits[len(hits)-1]
}

// harness is a running gateway in front of two recording upstreams, with a
// real identity provider and real Redis.
type harness struct {
	idp       *devidptest.IdP
	base      string
	adminBase string // the admin listener: /livez, /readyz, /metrics
	search    *upstream
	jobs      *upstream
	logs      *logtest.Buffer
	stop      func() error // shuts the gateway down gracefully; later calls return nil
}

// setup is what the options change before the gateway starts.
type setup struct {
	env    map[string]string
	ac     *auth.Config
	tracer trace.TracerProvider
}

// option changes the harness before the gateway starts.
type option func(*setup)

func withEnv(kv ...string) option {
	return func(s *setup) {
		for i := 0; i+1 < len(kv); i += 2 {
			s.env[kv[i]] = kv[i+1]
		}
	}
}

// withRoute adds a route to the default table.
func withRoute(prefix, upstreamURL string) option {
	return func(s *setup) {
		s.env["ROUTES"] += "," + prefix + "=" + upstreamURL
	}
}

func withAuth(f func(*auth.Config)) option {
	return func(s *setup) { f(s.ac) }
}

// withTracer traces the gateway through tp.
func withTracer(tp trace.TracerProvider) option {
	return func(s *setup) { s.tracer = tp }
}

// quietRedis keeps go-redis's dial complaints about stopped test servers out of the test output.
var quietRedis sync.Once

// start runs a gateway configured through the same environment variables as
// production and started by app.New as cmd/gateway starts it, on a loopback
// port, and stops it gracefully when t ends.
func start(t testing.TB, opts ...option) *harness {
	t.Helper()
	quietRedis.Do(func() { ratelimit.LogRedisTo(slog.New(slog.DiscardHandler)) })
	h := &harness{idp: devidptest.Start(t), search: newUpstream(t, "search"), jobs: newUpstream(t, "jobs"), logs: &logtest.Buffer{}}
	env := map[string]string{
		"HTTP_ADDR":             "127.0.0.1:0",
		"ADMIN_ADDR":            "127.0.0.1:0",
		"ROUTES":                "/search=" + h.search.srv.URL + ",/go/v1=" + h.jobs.srv.URL,
		"REDIS_URL":             redistest.URL(t),
		"RATE_LIMIT_KEY_PREFIX": "gwtest-" + randomHex(t),
		"REDIS_PROBE_INTERVAL":  "50ms",
		"HTTP_SHUTDOWN_TIMEOUT": "5s",
	}
	ac := h.idp.VerifierConfig()
	set := setup{env: env, ac: &ac}
	for _, o := range opts {
		o(&set)
	}
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(env))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tracing.Provider = set.tracer
	cfg.Logger = server.NewLogger(h.logs, server.LogConfig{}) // as the program's, with the request's members
	if _, ok := t.(*testing.B); ok {
		cfg.Logger = slog.New(slog.DiscardHandler) // a growing log would make the benchmark measure the GC
	}
	cfg.OIDC = ac // the test's identity provider, its client and the options' changes
	gw, err := app.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.base, h.adminBase = "http://"+gw.Addr(), "http://"+gw.AdminAddr()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- gw.Run(ctx) }()
	var once sync.Once
	h.stop = func() (err error) {
		once.Do(func() {
			cancel()
			err = errors.Join(<-served, gw.Close())
		})
		return err
	}
	t.Cleanup(func() {
		if err := h.stop(); err != nil {
			t.Errorf("gateway did not shut down cleanly: %v", err)
		}
	})
	return h
}

// do sends a request through the gateway with token as bearer ("" for none)
// and returns the response with its body read.
func (h *harness) do(t *testing.T, method, path, token string, body io.Reader, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, h.base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// admin GETs path from the admin listener and returns the response with its body read.
func (h *harness) admin(t *testing.T, path string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(h.adminBase + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// get is do for a GET without a body.
func (h *harness) get(t *testing.T, path, token string, header ...string) (*http.Response, string) {
	t.Helper()
	return h.do(t, http.MethodGet, path, token, nil, header...)
}

// send writes request bytes on a fresh connection, for what no client
// would send, and returns the connection, which the test closes (the
// deadline bounds every read of it).
func (h *harness) send(t *testing.T, request string, deadline time.Duration) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(deadline))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	return conn
}

// raw sends request (send) and returns the status line.
func (h *harness) raw(t *testing.T, request string) string {
	t.Helper()
	line, err := readLine(h.send(t, request, 10*time.Second))
	if err != nil {
		t.Fatalf("read status line: %v", err)
	}
	return line
}

func readLine(r io.Reader) (string, error) {
	var sb strings.Builder
	b := make([]byte, 1)
	for {
		if _, err := r.Read(b); err != nil {
			return sb.String(), err
		}
		if b[0] == '\n' {
			return strings.TrimRight(sb.String(), "\r"), nil
		}
		sb.WriteByte(b[0])
	}
}

// assertRateLimitHeaders fails unless resp carries each rate-limit header exactly once.
func assertRateLimitHeaders(t *testing.T, resp *http.Response) {
	t.Helper()
	for _, k := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit"} {
		if got := resp.Header.Values(k); len(got) != 1 || got[0] == "" {
			t.Errorf("%d response: %s = %q, want exactly one value", resp.StatusCode, k, got)
		}
	}
	if reset := atoi(resp.Header.Get("X-RateLimit-Reset")); int64(reset) < time.Now().Unix()-1 {
		t.Errorf("X-RateLimit-Reset = %d is not a future epoch second", reset)
	}
}

// problemBody decodes an RFC 9457 body and checks its status.
func problemBody(t *testing.T, resp *http.Response, body string, status int) map[string]any {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type = %q, want application/problem+json", ct)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatalf("decode problem: %v; body %s", err, body)
	}
	if p["status"] != float64(status) || p["request_id"] == "" || p["request_id"] != resp.Header.Get("X-Request-ID") {
		t.Fatalf("problem %v does not match status %d and X-Request-ID %q", p, status, resp.Header.Get("X-Request-ID"))
	}
	return p
}

// atoi reads a decimal header value, or -1 when it is not one.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

func randomHex(t testing.TB) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// waitFor polls cond until it holds, for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	polltest.Until(t, 10*time.Second, what, cond)
}
