package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/server"
)

// newHandler returns a program's public handler around a small gin API,
// its admin handler with checks, and their log.
func newHandler(t *testing.T, checks ...server.Check) (public, admin http.Handler, logs *strings.Builder) {
	t.Helper()
	logs = &strings.Builder{}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	metrics := server.NewMetrics()
	engine := server.NewGin()
	engine.POST("/api/v1/things/:id", func(c *gin.Context) {
		var req struct {
			Name *string `json:"name"`
		}
		var v problem.Violations
		if err := problem.DecodeJSON(c.Request, &req, &v); err != nil {
			problem.Abort(c, err)
			return
		}
		c.JSON(http.StatusCreated, gin.H{"id": c.Param("id")})
	})
	engine.GET("/panic", func(c *gin.Context) { panic("boom") })
	public = server.Handler(server.Options{Logger: logger, Metrics: metrics, App: engine, MaxBodyBytes: 64})
	admin = server.AdminHandler(server.AdminOptions{Logger: logger, Metrics: metrics, Checks: checks})
	return public, admin, logs
}

func serve(h http.Handler, method, path, body string, header http.Header) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, vs := range header {
		r.Header[k] = vs
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestRequestIDIsHonouredOnlyWhenSane(t *testing.T) {
	t.Parallel()
	h, _, _ := newHandler(t)
	tests := []struct {
		name     string
		incoming string
		kept     bool
	}{
		{"a plain id is kept", "abc-123_x.y:z", true},
		{"an id with spaces is replaced", "abc 123", false},
		{"an id with a newline is replaced", "abc\nlevel=error", false},
		{"an overlong id is replaced", strings.Repeat("a", 129), false},
		{"a unicode id is replaced", "pedido-ç", false},
		{"a missing id is generated", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serve(h, http.MethodGet, "/livez", "", http.Header{"X-Request-Id": {tt.incoming}})
			got := w.Header().Get("X-Request-ID")
			if got == "" || (got == tt.incoming) != tt.kept {
				t.Fatalf("X-Request-ID = %q for incoming %q", got, tt.incoming)
			}
		})
	}
}

// A query string that does not parse is a 400: url.Values drops the pair
// without a word, so a filter written "?nivel=%zz" or "?a=1;b=2" went
// missing and a list answered unfiltered.
func TestAQueryThatDoesNotParseIsA400(t *testing.T) {
	t.Parallel()
	h, _, _ := newHandler(t)
	for _, query := range []string{"?name=%zz", "?name=a;b", "?page=1;per_page=5", "?name=%G1", "?%zz=1"} {
		w := serve(h, http.MethodPost, "/api/v1/things/1"+query, "{}", http.Header{"Content-Type": {"application/json"}})
		if w.Code != http.StatusBadRequest || w.Header().Get("Content-Type") != problem.ContentType {
			t.Errorf("%s: status %d %q, want a 400 problem", query, w.Code, w.Body.String())
		}
	}
	for _, query := range []string{"?name=a%20b", "?name=%C3%A9&page=2", "?x=%25"} {
		if w := serve(h, http.MethodPost, "/api/v1/things/1"+query, "{}", http.Header{"Content-Type": {"application/json"}}); w.Code != http.StatusCreated {
			t.Errorf("%s: status %d %q, want 201", query, w.Code, w.Body.String())
		}
	}
}

func TestUnknownRoutesAndMethodsAreProblems(t *testing.T) {
	t.Parallel()
	h, _, _ := newHandler(t)
	for path, want := range map[string]int{"/nope": 404, "/api/v1/things/1/": 404, "/../etc/passwd": 404} {
		w := serve(h, http.MethodPost, path, "{}", http.Header{"Content-Type": {"application/json"}})
		if w.Code != want || w.Header().Get("Content-Type") != problem.ContentType {
			t.Errorf("%s: status %d content type %q", path, w.Code, w.Header().Get("Content-Type"))
		}
	}
	w := serve(h, http.MethodDelete, "/api/v1/things/1", "", nil)
	if w.Code != http.StatusMethodNotAllowed {
		t.Fatalf("DELETE status = %d, want 405", w.Code)
	}
}

func TestBodiesOverTheLimitAre413(t *testing.T) {
	t.Parallel()
	h, _, _ := newHandler(t)
	body := `{"name":"` + strings.Repeat("é", 100) + `"}`
	w := serve(h, http.MethodPost, "/api/v1/things/1", body, http.Header{"Content-Type": {"application/json"}})
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status = %d, want 413: %s", w.Code, w.Body)
	}
	// Without Content-Length (chunked) the limit still holds while reading.
	r := httptest.NewRequest(http.MethodPost, "/api/v1/things/1", io.MultiReader(strings.NewReader(body)))
	r.ContentLength = -1
	r.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked status = %d, want 413", rec.Code)
	}
}

func TestPanicsBecome500WithoutDetails(t *testing.T) {
	t.Parallel()
	h, _, logs := newHandler(t)
	w := serve(h, http.MethodGet, "/panic", "", nil)
	if w.Code != 500 || strings.Contains(w.Body.String(), "boom") {
		t.Fatalf("status %d body %s", w.Code, w.Body)
	}
	if !strings.Contains(logs.String(), `"status":500`) || !strings.Contains(logs.String(), `"route":"/panic"`) {
		t.Fatalf("access log misses the 500: %s", logs)
	}
}

// stillWorking is a probe error whose program works on without the dependency.
type stillWorking struct{ error }

func (stillWorking) Degraded() bool     { return true }
func (stillWorking) ProbeCause() string { return "stale" }

func TestReadyzReportsCriticalAndDegradedChecks(t *testing.T) {
	t.Parallel()
	ok := func(context.Context) error { return nil }
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused to 10.3.7.9:5432")}
	down := func(context.Context) error { return fmt.Errorf("ping postgres at db.internal: %w", refused) }
	stale := func(context.Context) error {
		return stillWorking{errors.New("get http://keycloak.internal/certs: refused")}
	}
	slow := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	tests := []struct {
		name   string
		checks []server.Check
		status int
		state  string
		want   map[string]string
	}{
		{"all checks passing is ready", []server.Check{{Name: "postgres", Critical: true, Probe: ok}}, 200, "ok",
			map[string]string{"postgres": "ok"}},
		{"a failing optional check is degraded but ready", []server.Check{{Name: "postgres", Critical: true, Probe: ok}, {Name: "redis", Probe: down}}, 200, "degraded",
			map[string]string{"postgres": "ok", "redis": "degraded: unreachable"}},
		{"a failing critical check is unavailable", []server.Check{{Name: "postgres", Critical: true, Probe: down}}, 503, "unavailable",
			map[string]string{"postgres": "down: unreachable"}},
		{"a critical check that still works is degraded", []server.Check{{Name: "oidc", Critical: true, Probe: stale}}, 200, "degraded",
			map[string]string{"oidc": "degraded: stale"}},
		{"a hung check times out", []server.Check{{Name: "postgres", Critical: true, Probe: slow}}, 503, "unavailable",
			map[string]string{"postgres": "down: timeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, admin, logs := newHandler(t, tt.checks...)
			w := serve(admin, http.MethodGet, "/readyz", "", nil)
			var body server.Readiness
			_ = json.Unmarshal(w.Body.Bytes(), &body)
			if w.Code != tt.status || body.Status != tt.state || !maps.Equal(body.Checks, tt.want) {
				t.Fatalf("status %d body %s; want %d %s %v", w.Code, w.Body, tt.status, tt.state, tt.want)
			}
			for _, leak := range []string{"10.3.7.9", "db.internal", "keycloak", "refused"} {
				if strings.Contains(w.Body.String(), leak) {
					t.Errorf("the probe body leaks %q: %s", leak, w.Body)
				}
			}
			if tt.state != "ok" && !strings.Contains(logs.String(), "readiness check failing") {
				t.Errorf("the failure is not logged: %s", logs)
			}
		})
	}
}

func TestReadyzLogsEachStateChangeOnce(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	probe := func(context.Context) error {
		if failing.Load() {
			return errors.New("connection refused")
		}
		return nil
	}
	_, admin, logs := newHandler(t, server.Check{Name: "postgres", Critical: true, Probe: probe})
	for _, fail := range []bool{false, false, true, true, true, false, false} {
		failing.Store(fail)
		serve(admin, http.MethodGet, "/readyz", "", nil)
	}
	if n := strings.Count(logs.String(), "readiness check failing"); n != 1 {
		t.Errorf("the failure was logged %d times, want once", n)
	}
	if n := strings.Count(logs.String(), "readiness check recovered"); n != 1 {
		t.Errorf("the recovery was logged %d times, want once", n)
	}
}

func TestProbesAndMetricsAreOnTheAdminListenerOnly(t *testing.T) {
	t.Parallel()
	down := func(context.Context) error { return errors.New("dial tcp 10.3.7.9:5432: connection refused") }
	public, admin, _ := newHandler(t, server.Check{Name: "postgres", Critical: true, Probe: down})
	tests := []struct {
		name   string
		h      http.Handler
		method string
		path   string
		status int
	}{
		{"the public port answers /livez", public, http.MethodGet, "/livez", http.StatusOK},
		{"the public port has no /readyz", public, http.MethodGet, "/readyz", http.StatusNotFound},
		{"the public port has no /metrics", public, http.MethodGet, "/metrics", http.StatusNotFound},
		{"the admin port answers /livez", admin, http.MethodGet, "/livez", http.StatusOK},
		{"the admin port answers /readyz", admin, http.MethodGet, "/readyz", http.StatusServiceUnavailable},
		{"the admin port answers /metrics", admin, http.MethodGet, "/metrics", http.StatusOK},
		{"the admin port serves nothing else", admin, http.MethodGet, "/api/v1/things/1", http.StatusNotFound},
		{"the admin port answers GET only", admin, http.MethodPost, "/readyz", http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serve(tt.h, tt.method, tt.path, "", nil)
			if w.Code != tt.status {
				t.Fatalf("%s %s = %d %s, want %d", tt.method, tt.path, w.Code, w.Body, tt.status)
			}
			if strings.Contains(w.Body.String(), "10.3.7.9") {
				t.Errorf("the body leaks the dial error: %s", w.Body)
			}
		})
	}
}

// A 405 from a probe, on either listener, says what the path takes (RFC
// 9110 15.5.6) and carries a request id like every problem.
func TestAProbeRefusesOtherMethodsWithAllow(t *testing.T) {
	t.Parallel()
	public, admin, _ := newHandler(t)
	for _, c := range []struct {
		name string
		h    http.Handler
		path string
	}{{"public", public, "/livez"}, {"admin", admin, "/livez"}, {"admin", admin, "/readyz"}, {"admin", admin, "/metrics"}} {
		for _, method := range []string{http.MethodPost, http.MethodDelete, http.MethodOptions} {
			w := serve(c.h, method, c.path, "", nil)
			var p problem.Body
			if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" || json.Unmarshal(w.Body.Bytes(), &p) != nil ||
				p.RequestID == "" || p.RequestID != w.Header().Get("X-Request-Id") {
				t.Errorf("%s %s on the %s listener: %d, Allow %q, X-Request-Id %q: %s; want a 405 allowing GET, HEAD with its request id",
					method, c.path, c.name, w.Code, w.Header().Get("Allow"), w.Header().Get("X-Request-Id"), w.Body)
			}
		}
	}
}

func TestServeAllServesBothListenersAndDrainsThem(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.DiscardHandler)
	cfg := server.Config{ReadHeaderTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: 5 * time.Second, IdleTimeout: time.Second, MaxHeaderBytes: 4096, MaxBodyBytes: 1}
	started := make(chan struct{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		time.Sleep(300 * time.Millisecond)
		_, _ = w.Write([]byte("done"))
	})
	admin := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("admin")) })
	var eps []server.Endpoint
	for _, h := range []http.Handler{slow, admin} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		eps = append(eps, server.Endpoint{Server: server.New(cfg, h, logger), Listener: ln})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.ServeAll(ctx, 5*time.Second, logger, eps...) }()
	get := func(ln net.Listener) string {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			return "error: " + err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := get(eps[1].Listener); got != "admin" {
		t.Fatalf("admin listener answered %q", got)
	}
	inflight := make(chan string, 1)
	go func() { inflight <- get(eps[0].Listener) }()
	<-started
	cancel()
	if got := <-inflight; got != "done" {
		t.Fatalf("in-flight request got %q, want it to finish", got)
	}
	if err := <-done; err != nil {
		t.Fatalf("ServeAll = %v", err)
	}
	for _, ep := range eps {
		if _, err := http.Get("http://" + ep.Listener.Addr().String() + "/"); err == nil {
			t.Fatalf("%s still accepts connections after shutdown", ep.Listener.Addr())
		}
	}
}

func TestAdminConfigNeedsAListenerOfItsOwn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		admin, http string
		ok          bool
	}{
		{":9090", ":8080", true},
		{"127.0.0.1:0", "127.0.0.1:0", true},
		{"", ":8080", false},
		{":8080", ":8080", false},
	}
	for _, tt := range tests {
		if err := (server.AdminConfig{Addr: tt.admin}).Validate(tt.http); (err == nil) != tt.ok {
			t.Errorf("ADMIN_ADDR %q beside HTTP_ADDR %q: %v, want ok=%v", tt.admin, tt.http, err, tt.ok)
		}
	}
}

func TestMetricsCountRequestsByRouteTemplate(t *testing.T) {
	t.Parallel()
	h, admin, _ := newHandler(t)
	for _, id := range []string{"1", "2", "3"} {
		serve(h, http.MethodPost, "/api/v1/things/"+id, `{"name":"x"}`, http.Header{"Content-Type": {"application/json"}})
	}
	serve(h, http.MethodGet, "/random/"+strings.Repeat("x", 10), "", nil)
	w := serve(admin, http.MethodGet, "/metrics", "", nil)
	text := w.Body.String()
	for _, want := range []string{
		`http_requests_total{method="POST",route="/api/v1/things/:id",status="201"} 3`,
		`http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`http_request_duration_seconds_bucket{method="POST",route="/api/v1/things/:id",status="201"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestServeDrainsInFlightRequestsOnShutdown(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		time.Sleep(300 * time.Millisecond)
		_, _ = w.Write([]byte("done"))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	cfg := server.Config{Addr: ln.Addr().String(), ReadHeaderTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: 5 * time.Second, IdleTimeout: time.Second, MaxHeaderBytes: 4096, MaxBodyBytes: 1}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Serve(ctx, server.New(cfg, h, logger), ln, 5*time.Second, logger) }()

	resc := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			resc <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		resc <- string(b)
	}()
	<-started
	cancel()
	if got := <-resc; got != "done" {
		t.Fatalf("in-flight request got %q, want it to finish", got)
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve returned %v", err)
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/"); err == nil {
		t.Fatal("server still accepts connections after shutdown")
	}
}

// HEAD is answered wherever GET is (RFC 9110: every general-purpose server
// supports both), as the GET route answers it, through its middleware,
// without a body; a 405 for another method lists HEAD beside GET, and HEAD
// where there is no GET is still a 405.
func TestHeadIsAnsweredWhereverGetIs(t *testing.T) {
	t.Parallel()
	engine := server.NewGin()
	var checked atomic.Int32
	guard := func(c *gin.Context) { checked.Add(1) }
	engine.GET("/api/v1/things/:id", guard, func(c *gin.Context) {
		c.Header("X-Thing", c.Param("id"))
		c.JSON(http.StatusOK, gin.H{"id": c.Param("id")})
	})
	engine.POST("/api/v1/orders", func(c *gin.Context) { c.Status(http.StatusCreated) })
	// A route that registers its HEAD itself, as a program unaware of the
	// above would.
	engine.GET("/api/v1/both", func(c *gin.Context) { c.Status(http.StatusOK) })
	engine.HEAD("/api/v1/both", func(c *gin.Context) { c.Status(http.StatusOK) })
	srv := httptest.NewServer(server.Handler(server.Options{Logger: slog.New(slog.DiscardHandler), Metrics: server.NewMetrics(), App: engine}))
	defer srv.Close()
	do := func(method, path string) (*http.Response, string) {
		t.Helper()
		return send(t, method, srv.URL+path)
	}
	get, getBody := do(http.MethodGet, "/api/v1/things/7")
	head, headBody := do(http.MethodHead, "/api/v1/things/7")
	if head.StatusCode != http.StatusOK || headBody != "" || head.Header.Get("X-Thing") != "7" ||
		head.Header.Get("Content-Type") != get.Header.Get("Content-Type") || head.Header.Get("Allow") != "" {
		t.Errorf("HEAD: %d %q, headers %v; GET gave %q, %v", head.StatusCode, headBody, head.Header, getBody, get.Header)
	}
	if n := checked.Load(); n != 2 {
		t.Errorf("the GET route's middleware ran %d times for a GET and a HEAD, want 2", n)
	}
	if resp, _ := do(http.MethodPut, "/api/v1/things/7"); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("PUT: %d, Allow %q; want 405 allowing GET, HEAD", resp.StatusCode, resp.Header.Get("Allow"))
	}
	if resp, _ := do(http.MethodDelete, "/api/v1/both"); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("DELETE where GET and HEAD are registered: %d, Allow %q; want 405 allowing GET, HEAD once each", resp.StatusCode, resp.Header.Get("Allow"))
	}
	resp, _ := do(http.MethodHead, "/api/v1/orders")
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Errorf("HEAD where only POST is: %d, Allow %q; want 405 allowing POST", resp.StatusCode, resp.Header.Get("Allow"))
	}
	// Its length is the GET's body's (RFC 9110, 8.6): the refusal used to
	// name the method, one letter longer for HEAD.
	if _, refusal := do(http.MethodGet, "/api/v1/orders"); resp.ContentLength != int64(len(refusal)) {
		t.Errorf("HEAD where only POST is: Content-Length %d, but the GET's 405 is %d bytes: %s", resp.ContentLength, len(refusal), refusal)
	}
}

// The timeout a refusal is about is named: it was "HTTP timeouts must be
// positive", of five.
func TestHTTPConfigNamesTheTimeoutThatCannotWork(t *testing.T) {
	t.Parallel()
	cfg := server.Config{Addr: ":1", ReadHeaderTimeout: time.Second, ReadTimeout: -time.Second, IdleTimeout: time.Second, MaxBodyBytes: 1, MaxHeaderBytes: 1}
	if err := cfg.Validate(); err == nil || err.Error() != "HTTP_READ_TIMEOUT must be positive, not -1s" {
		t.Errorf("err = %v", err)
	}
}
