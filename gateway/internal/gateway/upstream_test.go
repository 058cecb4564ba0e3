package gateway_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/municipal-apis/platform/gateway/internal/proxy"
)

// closedURL returns the URL of a loopback port nobody listens on: port 1,
// which no test binds. A port picked free and closed again could be taken
// by the next listener of a test running in parallel (it was, by another
// gateway's admin listener, which answered 404 instead of the 502 wanted).
func closedURL(t *testing.T) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:1", time.Second)
	if err == nil {
		_ = conn.Close()
		t.Fatal("something listens on 127.0.0.1:1; the test needs a closed port")
	}
	return "http://127.0.0.1:1"
}

// slowServer answers only after the client gave up or ten seconds passed.
func slowServer(t *testing.T) string {
	t.Helper()
	return httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
}

// cutServer sends the head of a 200 with a short body of stated length
// and part of that body, then closes the connection, or, when stall is
// set, waits until the client gave up or ten seconds passed.
func cutServer(t *testing.T, stall bool) string {
	t.Helper()
	return httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: \"v1\"\r\nContent-Length: 100\r\n\r\n{\"data\":[")
		_ = buf.Flush()
		if stall {
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, _ = conn.Read(make([]byte, 1)) // returns when the gateway closes its end
		}
	})
}

func TestUpstreamFailures(t *testing.T) {
	t.Parallel()
	h := start(t, withEnv("UPSTREAM_RESPONSE_TIMEOUT", "200ms"),
		withRoute("/down", closedURL(t)), withRoute("/slow", slowServer(t)),
		withRoute("/cut", cutServer(t, false)), withRoute("/stalled", cutServer(t, true)))
	token := h.idp.Token(t, "reader")
	tests := []struct {
		name   string
		path   string
		status int
	}{
		{"an upstream that is down is a 502", "/down/api", http.StatusBadGateway},
		{"an upstream that does not answer in time is a 504", "/slow/api", http.StatusGatewayTimeout},
		// A short body is read whole before the head goes to the client,
		// so its loss can still be told as a problem, not a cut answer.
		{"a short body the upstream cuts is a 502", "/cut/api", http.StatusBadGateway},
		{"a short body that stops coming within the response timeout is a 504", "/stalled/api", http.StatusGatewayTimeout},
		{"an unknown prefix is a 404", "/nowhere/api", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := h.get(t, tt.path, token)
			p := problemBody(t, resp, body, tt.status)
			assertRateLimitHeaders(t, resp)
			if etag := resp.Header.Get("ETag"); etag != "" {
				t.Errorf("the problem carries the upstream's ETag %s", etag)
			}
			if strings.Contains(body, "127.0.0.1") || strings.Contains(body, "dial") {
				t.Errorf("the problem leaks internals: %v", p)
			}
			if p["instance"] != tt.path {
				t.Errorf("instance = %v, want the client's path %s", p["instance"], tt.path)
			}
		})
	}
}

func TestUpstreamCopiesOfGatewayHeadersAreDropped(t *testing.T) {
	t.Parallel()
	srv := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Limit", "999999")
		w.Header().Set("RateLimit", `"upstream";r=1;t=1`)
		w.Header().Set("X-Request-ID", r.Header.Get("X-Request-ID"))
		w.Header().Set("X-Service", "kept")
	})
	h := start(t, withRoute("/echo", srv))
	resp, _ := h.get(t, "/echo/x", h.idp.Token(t, "reader"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	assertRateLimitHeaders(t, resp)
	if resp.Header.Get("X-RateLimit-Limit") != "600" {
		t.Errorf("X-RateLimit-Limit = %q, want the gateway's 600", resp.Header.Get("X-RateLimit-Limit"))
	}
	if got := resp.Header.Values("X-Request-ID"); len(got) != 1 {
		t.Errorf("X-Request-ID = %q, want one value", got)
	}
	if resp.Header.Get("X-Service") != "kept" {
		t.Error("an ordinary upstream header was lost")
	}
}

// A proxy passes the upstream's response headers as they are: a response
// without a Content-Type (which a client must then sniff or treat as
// octet-stream) gets none invented, whatever its length or framing.
func TestAResponseWithoutContentTypeGetsNoneInvented(t *testing.T) {
	t.Parallel()
	srv := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // net/http would sniff one
		switch r.URL.Path {
		case "/short":
			_, _ = w.Write([]byte("%PDF-1.7 short"))
		case "/long":
			_, _ = w.Write([]byte(strings.Repeat("x", proxy.ShortBody+1)))
		case "/chunked":
			_, _ = w.Write([]byte("first"))
			http.NewResponseController(w).Flush()
			_, _ = w.Write([]byte("second"))
		case "/typed":
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.7"))
		}
	})
	h := start(t, withRoute("/files", srv))
	token := h.idp.Token(t, "reader")
	for _, path := range []string{"/short", "/long", "/chunked"} {
		resp, body := h.get(t, "/files"+path, token)
		if resp.StatusCode != http.StatusOK || body == "" {
			t.Fatalf("%s: status %d, body %d bytes", path, resp.StatusCode, len(body))
		}
		if got, ok := resp.Header["Content-Type"]; ok {
			t.Errorf("%s: Content-Type = %q, want none: the upstream sent none", path, got)
		}
	}
	if resp, _ := h.get(t, "/files/typed", token); resp.Header.Get("Content-Type") != "application/pdf" {
		t.Errorf("Content-Type = %q, want the upstream's application/pdf", resp.Header.Get("Content-Type"))
	}
}

func TestResponsesAreStreamed(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	released := make(chan bool, 1)
	srv := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "first\n")
		http.NewResponseController(w).Flush()
		select {
		case <-release:
			released <- true
		case <-time.After(10 * time.Second):
			released <- false
		}
		_, _ = io.WriteString(w, "second\n")
	})
	h := start(t, withRoute("/stream", srv))
	req, err := http.NewRequest(http.MethodGet, h.base+"/stream/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.idp.Token(t, "reader"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || line != "first\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	close(release)
	if !<-released {
		t.Fatal("the first chunk reached the client only after the upstream finished: the gateway buffers")
	}
	if rest, _ := io.ReadAll(br); string(rest) != "second\n" {
		t.Fatalf("rest %q", rest)
	}
}

// httpServer runs handler on a loopback server until the test ends and returns its URL.
func httpServer(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv.URL
}

// The response timeout bounds the wait for the upstream's headers only: an
// event stream that keeps going past it reaches the client whole.
func TestAStreamOutlivesTheResponseTimeout(t *testing.T) {
	t.Parallel()
	srv, want := eventStream(t, 3, 300*time.Millisecond)
	h := start(t, withEnv("UPSTREAM_RESPONSE_TIMEOUT", "200ms"), withRoute("/events", srv))
	resp, body := h.get(t, "/events/feed", h.idp.Token(t, "reader"))
	if resp.StatusCode != http.StatusOK || body != want {
		t.Fatalf("status %d, body %q: the stream was cut", resp.StatusCode, body)
	}
	assertRateLimitHeaders(t, resp)
}

// eventStream serves n events, gap apart, flushing each, and returns its URL
// and the body a client reading it whole gets.
func eventStream(t *testing.T, n int, gap time.Duration) (url, body string) {
	t.Helper()
	for i := range n {
		body += "data: " + itoa(i) + "\n\n"
	}
	return httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range n {
			_, _ = io.WriteString(w, "data: "+itoa(i)+"\n\n")
			http.NewResponseController(w).Flush()
			time.Sleep(gap)
		}
	}), body
}

// A large chunked upload reaches the upstream whole, streamed, and the
// headers of one connection (hop-by-hop, and those Connection names) do not.
func TestALargeChunkedBodyReachesTheUpstreamWhole(t *testing.T) {
	t.Parallel()
	type got struct {
		n         int
		chunked   bool
		secret    string
		keepAlive string
	}
	gotc := make(chan got, 1)
	srv := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotc <- got{len(b), len(r.TransferEncoding) > 0, r.Header.Get("X-Hop-Secret"), r.Header.Get("Keep-Alive")}
	})
	h := start(t, withEnv("HTTP_MAX_BODY_BYTES", itoa(8<<20)), withRoute("/upload", srv))
	body := strings.Repeat("0123456789abcdef", 4<<16) // 4 MiB
	resp, _ := h.do(t, http.MethodPost, "/upload/files", h.idp.Token(t, "jobs-admin"), unsized{strings.NewReader(body)},
		"Connection", "X-Hop-Secret", "X-Hop-Secret", "s", "Keep-Alive", "timeout=5")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	g := <-gotc
	if g.n != len(body) || !g.chunked {
		t.Errorf("the upstream read %d bytes (chunked %v), want %d sent chunked", g.n, g.chunked, len(body))
	}
	if g.secret != "" || g.keepAlive != "" {
		t.Errorf("hop-by-hop headers reached the upstream: X-Hop-Secret %q, Keep-Alive %q", g.secret, g.keepAlive)
	}
}

// A short body read whole leaves its upstream connection open for the next
// request, as a streamed one does.
func TestShortBodiesKeepTheUpstreamConnection(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	conns := map[string]bool{}
	// Bodies of a few bytes, and of more than one read of the proxy's
	// buffer, up to the largest read whole.
	bodies := map[string]string{"/tiny": `{"data":[]}`, "/page": strings.Repeat("x", 10<<10), "/most": strings.Repeat("y", proxy.ShortBody)}
	srv := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		conns[r.RemoteAddr] = true
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, bodies[r.URL.Path])
	})
	h := start(t, withRoute("/short", srv))
	token := h.idp.Token(t, "reader")
	for range 3 {
		for path, want := range bodies {
			if resp, body := h.get(t, "/short"+path, token); resp.StatusCode != http.StatusOK || body != want {
				t.Fatalf("%s: status %d, body of %d bytes, want %d", path, resp.StatusCode, len(body), len(want))
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(conns) != 1 {
		t.Fatalf("9 requests one after the other took %d upstream connections, want 1", len(conns))
	}
}

// HTTP_WRITE_TIMEOUT bounds how long a client may go without reading, not
// how long an answer may last: an event stream read as it comes outlives it.
// fasthttp's WriteTimeout, a deadline for the whole answer, cut the stream
// after one second here (after 60 s with the default).
func TestAStreamOutlivesTheWriteTimeout(t *testing.T) {
	t.Parallel()
	srv, want := eventStream(t, 5, 400*time.Millisecond)
	h := start(t, withEnv("HTTP_WRITE_TIMEOUT", "1s"), withRoute("/events", srv))
	resp, body := h.get(t, "/events/feed", h.idp.Token(t, "reader")) // a cut stream fails the body's read
	if resp.StatusCode != http.StatusOK || body != want {
		t.Fatalf("status %d, body %q: the stream was cut", resp.StatusCode, body)
	}
}

// A client that stops reading a large answer is reset when the write
// timeout ends, as nginx's reset_timedout_connection does, so that the
// kernel does not keep what it did not read. A plain close left the rest of
// the send buffer (megabytes) to it, in FIN-WAIT-1, for as long as the
// client kept its window shut.
func TestAClientThatStopsReadingIsReset(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	srv := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", itoa(32*len(big)))
		for range 32 {
			if _, err := io.WriteString(w, big); err != nil {
				return
			}
		}
	})
	h := start(t, withEnv("HTTP_WRITE_TIMEOUT", "500ms"), withRoute("/big", srv))
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(h.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "GET /big/file HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+h.idp.Token(t, "reader")+"\r\n\r\n")
	time.Sleep(2 * time.Second) // not reading, past the write timeout
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := io.Copy(io.Discard, conn)
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("the stalled client read %d bytes, then %v; want a reset", n, err)
	}
}
