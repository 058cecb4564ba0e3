package gateway_test

import (
	"bufio"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
)

// unsized hides the length of a body so the client sends it chunked.
type unsized struct{ io.Reader }

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	h := start(t, withEnv("HTTP_MAX_BODY_BYTES", "1024"))
	token := h.idp.Token(t, "jobs-admin")
	tests := []struct {
		name   string
		body   io.Reader
		status int
	}{
		{"a body at the limit passes", strings.NewReader(strings.Repeat("a", 1024)), http.StatusOK},
		{"a declared length over the limit is a 413", strings.NewReader(strings.Repeat("a", 1025)), http.StatusRequestEntityTooLarge},
		// The gateway closes the connection under a body it will not read:
		// the client must get the 413, not a reset of its write.
		{"a declared length far over the limit is a 413", strings.NewReader(strings.Repeat("a", 4<<20)), http.StatusRequestEntityTooLarge},
		{"a chunked body over the limit is a 413", unsized{strings.NewReader(strings.Repeat("a", 64<<10))}, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := h.do(t, http.MethodPost, "/go/v1/api/v1/empregos", token, tt.body, "Content-Type", "application/json")
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tt.status, body)
			}
			if tt.status != http.StatusOK {
				problemBody(t, resp, body, tt.status)
			}
			assertRateLimitHeaders(t, resp)
		})
	}
	for _, in := range h.jobs.requests() {
		if len(in.Body) > 1024 {
			t.Fatalf("the upstream read a body of %d bytes", len(in.Body))
		}
	}
}

func TestOversizedHeadersAreRefused(t *testing.T) {
	t.Parallel()
	h := start(t, withEnv("HTTP_MAX_HEADER_BYTES", "4096"))
	resp, body := h.get(t, "/go/v1/api", h.idp.Token(t, "reader"), "X-Padding", strings.Repeat("p", 64<<10))
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("status %d, want 431", resp.StatusCode)
	}
	problemBody(t, resp, body, http.StatusRequestHeaderFieldsTooLarge)
	if n := len(h.jobs.requests()); n != 0 {
		t.Fatalf("the upstream received %d requests", n)
	}
}

func TestProbes(t *testing.T) {
	t.Parallel()
	up := start(t)
	noKeys := start(t, withAuth(func(c *auth.Config) { c.JWKSURL = closedURL(t) + "/certs" }))
	tests := []struct {
		name   string
		h      *harness
		path   string
		status int
		want   string
	}{
		{"livez answers while the process runs", up, "/livez", http.StatusOK, `"ok"`},
		{"readyz is ok when Redis and the JWKS answer", up, "/readyz", http.StatusOK, `"oidc":"ok"`},
		{"readyz reports Redis", up, "/readyz", http.StatusOK, `"redis":"ok"`},
		{"readyz is 503 when no key set was ever fetched", noKeys, "/readyz", http.StatusServiceUnavailable, `"oidc":"down: unreachable"`},
		{"livez does not depend on the JWKS", noKeys, "/livez", http.StatusOK, `"ok"`},
		{"metrics are served", up, "/metrics", http.StatusOK, "oidc_jwks_keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" on the admin listener", func(t *testing.T) {
			resp, body := tt.h.admin(t, tt.path)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Fatalf("%s: %d %s; want %d with %s", tt.path, resp.StatusCode, body, tt.status, tt.want)
			}
			if strings.Contains(body, "127.0.0.1") || strings.Contains(body, "connection refused") {
				t.Errorf("%s leaks error text: %s", tt.path, body)
			}
		})
	}
	t.Run("the public port answers livez without a token", func(t *testing.T) {
		if resp, body := up.get(t, "/livez", ""); resp.StatusCode != http.StatusOK {
			t.Fatalf("/livez: %d %s", resp.StatusCode, body)
		}
	})
	for _, path := range []string{"/readyz", "/metrics"} {
		t.Run("the public port does not serve "+path, func(t *testing.T) {
			resp, body := up.get(t, path, "")
			problemBody(t, resp, body, http.StatusUnauthorized)
			resp, body = up.get(t, path, up.idp.Token(t, "reader"))
			problemBody(t, resp, body, http.StatusNotFound)
			if strings.Contains(body, "oidc") || strings.Contains(body, "gateway_") {
				t.Fatalf("%s answered like a probe: %s", path, body)
			}
		})
	}
	t.Run("a token that cannot be checked is a 503 with rate-limit headers", func(t *testing.T) {
		resp, body := noKeys.get(t, "/go/v1/api", noKeys.idp.Token(t, "reader"))
		problemBody(t, resp, body, http.StatusServiceUnavailable)
		assertRateLimitHeaders(t, resp)
	})
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	h := start(t, withEnv("RATE_LIMIT_PER_CLIENT", "1-M"))
	token := h.idp.Token(t, "jobs-admin")
	h.get(t, "/go/v1/api/v1/empregos", token)
	h.get(t, "/go/v1/api/v1/empregos", token)
	h.get(t, "/go/v1/api/v1/empregos", "")
	tests := []struct {
		series string
		want   string
	}{
		{`http_requests_total{method="GET",route="/go/v1",status="200"}`, "1"},
		{`http_requests_total{method="GET",route="/go/v1",status="429"}`, "1"},
		{`http_requests_total{method="GET",route="/go/v1",status="401"}`, "1"},
		{`gateway_upstream_duration_seconds_count{outcome="200",route="/go/v1"}`, "1"},
		{`gateway_ratelimit_rejections_total{kind="client"}`, "1"},
		{`gateway_ratelimit_fallback`, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.series+" is "+tt.want, func(t *testing.T) {
			if got := metric(t, h, tt.series); got != tt.want {
				t.Fatalf("%s = %q, want %s", tt.series, got, tt.want)
			}
		})
	}
}

func TestShutdownDrainsInFlightRequests(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	srv := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		time.Sleep(300 * time.Millisecond)
		_, _ = io.WriteString(w, "done")
	})
	h := start(t, withRoute("/slow", srv))
	token := h.idp.Token(t, "reader")
	req, err := http.NewRequest(http.MethodGet, h.base+"/slow/work", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- result{body: resp.Status + " " + string(b), err: err}
	}()
	<-arrived
	if err := h.stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if r := <-got; r.err != nil || r.body != "200 OK done" {
		t.Fatalf("the in-flight request ended with %q, %v", r.body, r.err)
	}
	if _, err := http.Get(h.base + "/livez"); err == nil {
		t.Fatal("the gateway still accepts connections after shutdown")
	}
}

func TestTunnellingMethodsAreRefused(t *testing.T) {
	t.Parallel()
	h := start(t)
	token := h.idp.Token(t, "reader")
	resp, body := h.do(t, http.MethodTrace, "/go/v1/api", token, nil)
	problemBody(t, resp, body, http.StatusMethodNotAllowed)
	assertRateLimitHeaders(t, resp)
	// RFC 9110 15.5.6: a 405 names the methods that are allowed.
	if allow := resp.Header.Get("Allow"); !strings.Contains(allow, "GET") || strings.Contains(allow, "TRACE") {
		t.Errorf("Allow = %q, want the forwarded methods", allow)
	}
	// CONNECT's target is a host and port, not a path: still a 405.
	resp, body = rawAnswer(t, h, "CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\nAuthorization: Bearer "+token+"\r\n\r\n")
	problemBody(t, resp, body, http.StatusMethodNotAllowed)
	if resp.Header.Get("Allow") == "" {
		t.Error("the 405 to CONNECT has no Allow")
	}
	if n := len(h.jobs.requests()); n != 0 {
		t.Fatalf("the upstream received %d TRACE requests", n)
	}
}

// A chunked body whose framing does not parse is the client's fault: a 400,
// the connection closed, and the upstream, which got a cut body and a closed
// connection, is not counted as failing. It was a 502 "the upstream service
// is unavailable", counted as the upstream unreachable.
func TestAMalformedChunkedBodyIsTheClientsError(t *testing.T) {
	t.Parallel()
	h := start(t)
	post := "POST /go/v1/api/v1/empregos HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + h.idp.Token(t, "jobs-admin") +
		"\r\nTransfer-Encoding: chunked\r\n\r\n"
	for _, chunks := range []string{"zz\r\nhello\r\n0\r\n\r\n", "fffffffffffffffffffff1\r\nhello\r\n0\r\n\r\n", "3\r\nhello\r\n0\r\n\r\n"} {
		resp, body := rawAnswer(t, h, post+chunks)
		problemBody(t, resp, body, http.StatusBadRequest)
		assertRateLimitHeaders(t, resp)
		if !resp.Close {
			t.Errorf("%q: the connection stays open after a body that could not be read", chunks)
		}
	}
	const count = "gateway_upstream_duration_seconds_count"
	unreachable := metric(t, h, count+`{outcome="unreachable",route="/go/v1"}`)
	clientBody := metric(t, h, count+`{outcome="client_body",route="/go/v1"}`)
	if unreachable != "" || clientBody != "3" {
		t.Errorf("upstream calls counted unreachable %q, client_body %q; want none and 3: the client's body is not the upstream's fault", unreachable, clientBody)
	}
}

// A chunked body that stops coming while it is streamed upstream is the
// client's doing too: a 408, where it was a 504 "the upstream service did
// not answer in time".
func TestABodyThatStopsComingIsARequestTimeout(t *testing.T) {
	t.Parallel()
	h := start(t, withEnv("HTTP_READ_TIMEOUT", "1s"))
	resp, body := rawAnswer(t, h, "POST /go/v1/api/v1/empregos HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+
		h.idp.Token(t, "jobs-admin")+"\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n") // and nothing more
	problemBody(t, resp, body, http.StatusRequestTimeout)
	if !resp.Close {
		t.Error("the connection stays open after a body that stopped coming")
	}
}

// Requests framed two ways at once, or framed wrongly, are what request
// smuggling is made of: a proxy that reads one request where its upstream
// reads two lets the second through unchecked. Every such request is
// refused with a 400, or read one way only (a chunked body wins over a
// Content-Length, RFC 9112 6.3) with the connection closed after it, and
// nothing that follows it on the connection reaches an upstream.
func TestAmbiguouslyFramedRequestsSmuggleNothing(t *testing.T) {
	t.Parallel()
	h := start(t)
	auth := "Authorization: Bearer " + h.idp.Token(t, "jobs-admin") + "\r\n"
	post := "POST /go/v1/api/v1/empregos HTTP/1.1\r\nHost: x\r\n" + auth
	smuggled := "GET /go/v1/smuggled HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n"
	tests := []struct {
		name, request string
		statuses      []string // the status lines the client may get
	}{
		{"Content-Length before Transfer-Encoding", post + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled, []string{"200", "400"}},
		{"Transfer-Encoding before Content-Length", post + "Transfer-Encoding: chunked\r\nContent-Length: 60\r\n\r\n0\r\n\r\n" + smuggled, []string{"200", "400"}},
		{"two Content-Lengths", post + "Content-Length: 0\r\nContent-Length: 50\r\n\r\n" + smuggled, []string{"400"}},
		{"a signed Content-Length", post + "Content-Length: +4\r\n\r\nabcd", []string{"400"}},
		{"an unknown transfer coding", post + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n" + smuggled, []string{"400", "501"}},
		{"chunked not alone", post + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + smuggled, []string{"400", "501"}},
		{"a space before the colon", post + "X-A : b\r\nContent-Length: 0\r\n\r\n" + smuggled, []string{"400"}},
		{"two Host headers", "GET /go/v1/api/v1/empregos HTTP/1.1\r\nHost: x\r\nHost: y\r\n" + auth + "\r\n" + smuggled, []string{"400"}},
		{"no Host header", "GET /go/v1/api/v1/empregos HTTP/1.1\r\n" + auth + "\r\n" + smuggled, []string{"400"}},
		{"a NUL in a header value", post + "X-A: b\x00c\r\nContent-Length: 0\r\n\r\n" + smuggled, []string{"400"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, lines := statusLines(t, h, tt.request)
			if len(lines) != 1 || !slices.Contains(tt.statuses, strings.Fields(lines[0])[1]) {
				t.Fatalf("answers %q, want one of status %v", lines, tt.statuses)
			}
			// A refusal is a problem with its request id, as every answer
			// of the gateway: it was fasthttp's text/plain "Bad Request".
			resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode >= 400 {
				body, _ := io.ReadAll(resp.Body)
				problemBody(t, resp, string(body), resp.StatusCode)
				if strings.Contains(string(body), "smuggled") || strings.Contains(string(body), "Bearer") {
					t.Errorf("the refusal quotes the request: %s", body)
				}
			}
		})
	}
	for _, r := range h.jobs.requests() {
		if strings.Contains(r.RequestURI, "smuggled") {
			t.Fatalf("a request that followed an ambiguous one reached the upstream: %s %s", r.Method, r.RequestURI)
		}
	}
}

// statusLines writes request on a fresh connection and returns the status
// lines of every answer read until the gateway closes it (every case of
// the test closes it; a kept connection would end at the deadline).
func statusLines(t *testing.T, h *harness, request string) (raw string, lines []string) {
	t.Helper()
	b, _ := io.ReadAll(h.send(t, request, 10*time.Second)) // a timeout ends a kept connection
	for _, l := range strings.Split(string(b), "\r\n") {
		if strings.HasPrefix(l, "HTTP/1.") {
			lines = append(lines, l)
		}
	}
	return string(b), lines
}

// OPTIONS * asks about the server (RFC 9110, 9.3.7), not a routed resource:
// the gateway answers it as the services do, a 200 without a body, where it
// was a 400 for a path that does not start with "/".
func TestOptionsAsteriskIsAnsweredAsTheServicesAnswerIt(t *testing.T) {
	t.Parallel()
	h := start(t)
	resp, err := http.ReadResponse(bufio.NewReader(h.send(t, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 10*time.Second)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || len(body) != 0 || len(h.jobs.requests()) != 0 {
		t.Errorf("OPTIONS *: %d %q, %d requests upstream; want a 200 without a body, answered by the gateway", resp.StatusCode, body, len(h.jobs.requests()))
	}
}
