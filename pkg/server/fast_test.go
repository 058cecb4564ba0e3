package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/polltest"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/server"
)

// startFast serves app behind a FastHandler on a loopback port and returns
// its base URL, its metrics and its log.
func startFast(t *testing.T, app fasthttp.RequestHandler, expect func(*fasthttp.RequestCtx) bool) (string, *server.Metrics, *logtest.Buffer) {
	t.Helper()
	logs := &logtest.Buffer{}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	metrics := server.NewMetrics()
	h := server.NewFastHandler(server.FastOptions{Logger: logger, Metrics: metrics, App: app, Expect: expect})
	cfg := server.Config{ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second, MaxHeaderBytes: 8 << 10}
	srv := server.NewFast(cfg, h, logger)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String(), metrics, logs
}

// send sends method to url with the header pairs given (a name given
// twice goes on two lines), on a client that neither asks for a content
// coding nor undoes one, and returns the answer with its body as it came.
func send(t *testing.T, method, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := plainClient.Do(req)
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

// plainClient is send's client: Go's own asks for gzip and undoes it.
var plainClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

func get(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	return send(t, http.MethodGet, url, header...)
}

// The fasthttp chain keeps Handler's promises: the request id honoured or
// generated and echoed (and on the request, for an upstream), panics as
// 500 problems carrying it, /livez, one access-log line and the metrics by
// route.
func TestFastHandlerKeepsThePromisesOfHandler(t *testing.T) {
	t.Parallel()
	base, metrics, logs := startFast(t, func(c *fasthttp.RequestCtx) {
		switch string(c.Path()) {
		case "/panic":
			panic("boom")
		case "/things/1":
			server.SetFastRoute(c, "/things/:id")
			c.SetBody(c.Request.Header.Peek("X-Request-Id")) // what an upstream would get
		default:
			server.WriteFastProblem(c, problem.Errorf(problem.ENOTFOUND, "nothing at %s", server.FastPath(c)))
		}
	}, nil)

	resp, body := get(t, base+"/things/1", "X-Request-Id", "abc-123")
	if got := resp.Header.Get("X-Request-Id"); got != "abc-123" || body != "abc-123" {
		t.Errorf("a sane id: echoed %q, seen by the app %q; want abc-123 both", got, body)
	}
	resp, body = get(t, base+"/things/1", "X-Request-Id", "bad id\twith tab")
	if got := resp.Header.Get("X-Request-Id"); got == "" || strings.Contains(got, " ") || got != body {
		t.Errorf("an insane id: echoed %q, seen by the app %q; want one fresh id", got, body)
	}

	resp, body = get(t, base+"/panic")
	var p problem.Body
	if err := json.Unmarshal([]byte(body), &p); err != nil || resp.StatusCode != 500 || p.RequestID == "" ||
		p.RequestID != resp.Header.Get("X-Request-Id") || strings.Contains(body, "boom") {
		t.Errorf("panic: %d %s (%v); want a 500 problem with the request id and no detail", resp.StatusCode, body, err)
	}
	if resp.Header.Get("Content-Type") != problem.ContentType {
		t.Errorf("panic: Content-Type %q", resp.Header.Get("Content-Type"))
	}

	resp, body = get(t, base+"/nowhere%20here")
	if err := json.Unmarshal([]byte(body), &p); err != nil || resp.StatusCode != 404 || p.Instance != "/nowhere here" {
		t.Errorf("problem: %d %s; want a 404 whose instance is the decoded path", resp.StatusCode, body)
	}

	resp, body = get(t, base+"/livez")
	if resp.StatusCode != 200 || !strings.Contains(body, `"ok"`) {
		t.Errorf("/livez: %d %s", resp.StatusCode, body)
	}
	resp, body = send(t, http.MethodDelete, base+"/livez")
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" || resp.Header.Get("Content-Type") != problem.ContentType {
		t.Errorf("DELETE /livez: %d, Allow %q, %s; want a 405 problem allowing GET, HEAD", resp.StatusCode, resp.Header.Get("Allow"), body)
	}

	log := logs.String()
	if n := strings.Count(log, `"msg":"request"`); n != 5 {
		t.Errorf("%d access-log lines, want 5 (none for GET /livez):\n%s", n, log)
	}
	for _, want := range []string{`"route":"/things/:id"`, `"path":"/panic"`, `"status":500`, `"msg":"panic"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %s:\n%s", want, log)
		}
	}
	w := httptest.NewRecorder()
	metrics.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	rec := w.Body.String()
	for _, want := range []string{
		`http_requests_total{method="GET",route="/things/:id",status="200"} 2`,
		`http_requests_total{method="GET",route="unmatched",status="500"} 1`,
		`http_requests_total{method="GET",route="/livez",status="200"} 1`,
	} {
		if !strings.Contains(rec, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// A request that expects 100-continue and is refused before its body is
// invited is answered by Expect, logged and counted once; an invited one
// is served by the app, once.
func TestFastHandlerDecidesExpectContinueBeforeTheBody(t *testing.T) {
	t.Parallel()
	var served sync.Map
	base, _, logs := startFast(t, func(c *fasthttp.RequestCtx) {
		served.Store(string(c.Path()), true)
		b, _ := io.ReadAll(c.RequestBodyStream())
		c.SetBody(b)
	}, func(c *fasthttp.RequestCtx) bool {
		if string(c.Path()) == "/refused" {
			server.WriteFastProblem(c, problem.Errorf(problem.EUNAUTHORIZED, "no"))
			return false
		}
		return true
	})
	addr := strings.TrimPrefix(base, "http://")
	for _, tt := range []struct{ path, want string }{
		{"/refused", "HTTP/1.1 401 Unauthorized"},
		{"/invited", "HTTP/1.1 100 Continue"},
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = io.WriteString(conn, "POST "+tt.path+" HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
		buf := make([]byte, 64)
		n, err := conn.Read(buf)
		if err != nil || !strings.HasPrefix(string(buf[:n]), tt.want) {
			t.Errorf("%s: first answer %q (%v), want %s", tt.path, buf[:n], err, tt.want)
		}
		if tt.path == "/invited" {
			_, _ = io.WriteString(conn, "hi")
			var rest []byte
			for !strings.HasSuffix(string(rest), "hi") {
				n, err := conn.Read(buf)
				if err != nil {
					t.Fatalf("the invited body did not come back: %q (%v)", rest, err)
				}
				rest = append(rest, buf[:n]...)
			}
		}
		_ = conn.Close()
	}
	if _, ok := served.Load("/refused"); ok {
		t.Error("the app served a request Expect refused")
	}
	waitUntil(t, func() bool { return strings.Count(logs.String(), `"msg":"request"`) == 2 })
	if !strings.Contains(logs.String(), `"status":401`) {
		t.Errorf("the refusal is not logged:\n%s", logs.String())
	}
}

// TestFastHandlerReadsTheRequestIDUnderAnyCase: a header's name is
// case-insensitive on the wire, where Go's client would have made it
// canonical.
func TestFastHandlerReadsTheRequestIDUnderAnyCase(t *testing.T) {
	t.Parallel()
	base, _, _ := startFast(t, func(c *fasthttp.RequestCtx) {
		c.SetBody(c.Request.Header.Peek("X-Request-Id")) // what an upstream would get
	}, nil)
	for _, name := range []string{"x-REQUEST-id", "x-request-id", "X-Request-ID"} {
		head := rawGet(t, base, "/", name+": low-1")
		if !strings.Contains(head, "\r\nX-Request-Id: low-1\r\n") || !strings.HasSuffix(head, "\r\n\r\nlow-1") {
			t.Errorf("an id sent as %s is not honoured:\n%s", name, head)
		}
	}
}

// rawGet sends a GET of path with the header line given, as written, on a
// connection that asks to be closed, and returns the whole answer.
func rawGet(t *testing.T, base, path, header string) string {
	t.Helper()
	return rawRequest(t, base, "GET "+path+" HTTP/1.1\r\nHost: x\r\n"+header+"\r\nConnection: close\r\n\r\n")
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	polltest.Until(t, 5*time.Second, "the condition holds", cond)
}

// A program stopped while it starts (Shutdown before Serve) does not serve
// on: Serve returns at once, as an http.Server's does.
func TestFastServerShutdownBeforeServeStopsIt(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.DiscardHandler)
	h := server.NewFastHandler(server.FastOptions{Logger: logger, Metrics: server.NewMetrics(), App: func(*fasthttp.RequestCtx) {}})
	srv := server.NewFast(server.Config{ReadTimeout: time.Second, MaxHeaderBytes: 4096}, h, logger)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		if !errors.Is(err, http.ErrServerClosed) {
			t.Fatalf("Serve after Shutdown = %v, want http.ErrServerClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve after Shutdown is still serving")
	}
}

// A client that sends its request's head too slowly is cut off after
// ReadHeaderTimeout, not the longer ReadTimeout its body may take, as an
// http.Server does.
func TestFastServerBoundsTheHeadByReadHeaderTimeout(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.DiscardHandler)
	h := server.NewFastHandler(server.FastOptions{Logger: logger, Metrics: server.NewMetrics(), App: func(c *fasthttp.RequestCtx) {
		b, err := io.ReadAll(c.RequestBodyStream())
		if err != nil {
			c.SetStatusCode(http.StatusBadRequest)
			return
		}
		c.SetBody(b)
	}})
	cfg := server.Config{ReadHeaderTimeout: 200 * time.Millisecond, ReadTimeout: 30 * time.Second, MaxHeaderBytes: 4096}
	srv := server.NewFast(cfg, h, logger)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })

	// A head that never ends is cut off.
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	_, _ = io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n")
	if _, err := io.ReadAll(conn); err != nil {
		t.Fatalf("the server kept a slow head's connection open: %v", err)
	}

	// A body slower than ReadHeaderTimeout still arrives.
	conn2, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	_ = conn2.SetDeadline(time.Now().Add(20 * time.Second))
	_, _ = io.WriteString(conn2, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\n\r\n")
	for range 2 {
		time.Sleep(300 * time.Millisecond)
		_, _ = conn2.Write(make([]byte, 10000))
	}
	line := make([]byte, 15)
	if _, err := io.ReadFull(conn2, line); err != nil || string(line) != "HTTP/1.1 200 OK" {
		t.Fatalf("a slow body: %q (%v), want a 200", line, err)
	}
}

// A program that refuses a request without reading its large body (a
// declared body over the limit, a missing token) gets its answer to the
// client: the connection is not closed under the client's body, which
// would reset it, and Go's client would report the reset write instead of
// the answer. The body is larger than what a lingering connection reads
// and discards, so the wait that follows is exercised too.
func TestFastServerRefusalBeforeALargeBodyReachesTheClient(t *testing.T) {
	t.Parallel()
	base, _, _ := startFast(t, func(c *fasthttp.RequestCtx) {
		if c.Request.Header.ContentLength() > 1<<20 {
			server.WriteFastProblem(c, problem.BodyTooLarge(1<<20))
			return
		}
		c.SetStatusCode(http.StatusNoContent)
	}, nil)
	body := strings.Repeat("a", 64<<20)
	for i := range 20 {
		resp, err := http.Post(base+"/", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("request %d: %v, want a 413", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("request %d: status %d, want 413", i, resp.StatusCode)
		}
	}
}

// rawRequest writes head, as written, on a new connection and returns the
// whole answer.
func rawRequest(t *testing.T, base, head string) string {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.WriteString(conn, head)
	b, _ := io.ReadAll(conn)
	return string(b)
}

// A head the server cannot read is a 400 with an access-log line and a
// count under "unmatched", and nothing the client sent reaches the log:
// fasthttp's errors quote the head, its Authorization header and cookies
// among it, and they were logged as warnings, which any client could make.
func TestFastServerRefusesAnUnreadableHeadWithoutLoggingIt(t *testing.T) {
	t.Parallel()
	base, metrics, logs := startFast(t, func(c *fasthttp.RequestCtx) { c.SetStatusCode(http.StatusNoContent) }, nil)
	secrets := "Authorization: Bearer eyJ.SECRET-TOKEN.sig\r\nCookie: sid=SECRET-COOKIE\r\n"
	heads := map[string]string{
		"a control byte in the target":     "GET /x?access_token=SECRET-QUERY\x01 HTTP/1.1\r\nHost: x\r\n" + secrets + "\r\n",
		"a control byte in a value":        "GET /x HTTP/1.1\r\nHost: x\r\n" + secrets + "Referer: a\x01b\r\n\r\n",
		"a line without a colon":           "GET /x HTTP/1.1\r\nHost: x\r\n" + secrets + "NoColonHere\r\n\r\n",
		"two lengths":                      "POST /x HTTP/1.1\r\nHost: x\r\n" + secrets + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nab",
		"a request line without a version": "GET /x?access_token=SECRET-QUERY\r\nHost: x\r\n" + secrets + "\r\n",
	}
	for name, head := range heads {
		if got := rawRequest(t, base, head); !strings.HasPrefix(got, "HTTP/1.1 400 ") {
			t.Errorf("%s: answered %q, want a 400", name, got)
		}
	}
	// The access line is written as the answer goes out: wait for the last.
	waitUntil(t, func() bool { return strings.Count(logs.String(), `"msg":"request"`) == len(heads) })
	log := logs.String()
	if strings.Contains(log, "SECRET") {
		t.Errorf("the log holds what a client sent:\n%s", log)
	}
	if strings.Contains(log, `"level":"WARN"`) || strings.Contains(log, `"level":"ERROR"`) {
		t.Errorf("a client's unreadable head is logged as a warning or an error:\n%s", log)
	}
	if n := strings.Count(log, `"route":"unmatched","status":400`); n != len(heads) {
		t.Errorf("%d access lines of a 400 under unmatched, want %d:\n%s", n, len(heads), log)
	}
	for line := range strings.Lines(log) {
		var l struct{ Duration time.Duration }
		if err := json.Unmarshal([]byte(line), &l); err != nil || l.Duration < 0 || l.Duration > 5*time.Second {
			t.Errorf("a refusal's duration is %v (%v), want the time it took:\n%s", l.Duration, err, line)
		}
	}
	w := httptest.NewRecorder()
	metrics.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if want := `http_requests_total{method="OTHER",route="unmatched",status="400"} 5`; !strings.Contains(w.Body.String(), want) {
		t.Errorf("metrics lack %s:\n%s", want, w.Body.String())
	}
}

// A handler served through FromHTTP answers a request that declares a body
// without the body being read first: the adaptor read it whole into memory
// (a gigabyte, for a request to a page that needs no token) before the
// handler ran, and warned in the log for each such request.
func TestFromHTTPDoesNotReadTheBody(t *testing.T) {
	t.Parallel()
	base, _, logs := startFast(t, server.FromHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusMethodNotAllowed)
	})), nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(4 * time.Second)) // the server's read timeout is 5 s
	// A gigabyte announced, 16 KiB sent (the server reads the first 8 KiB
	// before the handler runs): the answer must come now.
	head := "POST /docs/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\n"
	if _, err := io.WriteString(conn, head+strings.Repeat("a", 16<<10)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 12)
	if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "HTTP/1.1 405" {
		t.Fatalf("answered %q (%v) before the body came, want a 405", buf, err)
	}
	if log := logs.String(); strings.Contains(log, "WARN") {
		t.Errorf("the log warns:\n%s", log)
	}
}

// OPTIONS * asks about the server (RFC 9110, 9.3.7): the gateway answered it
// a 400 ("the request path must start with /") where the services, on
// net/http, answer 200. It never reaches the App.
func TestOptionsAsteriskIsAnsweredByTheServer(t *testing.T) {
	t.Parallel()
	var reached atomic.Bool
	base, _, logs := startFast(t, func(c *fasthttp.RequestCtx) { reached.Store(true) }, nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.WriteString(conn, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || len(body) != 0 || resp.Header.Get("X-Request-Id") == "" || reached.Load() {
		t.Errorf("OPTIONS *: %d, %q, X-Request-Id %q, App reached %v; want a 200 without a body, not from the App",
			resp.StatusCode, body, resp.Header.Get("X-Request-Id"), reached.Load())
	}
	if !strings.Contains(logs.String(), `"route":"*"`) {
		t.Errorf("OPTIONS * is not in the access log under its own route:\n%s", logs)
	}
}
