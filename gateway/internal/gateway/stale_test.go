package gateway_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rawUpstream serves each request on a connection with answer, which writes
// the bytes of the answer on conn as they are (and may write more, or close
// it, later). It returns the upstream's URL.
func rawUpstream(t *testing.T, answer func(conn net.Conn, r *http.Request)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
					r, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, r.Body)
					answer(conn, r)
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

const okAnswer = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"

// An upstream may close a kept-alive connection whenever it is idle: its
// own keep-alive timeout is shorter than the gateway's (2 s for gunicorn,
// 5 s for Node), or it restarted. No client request is lost to a pooled
// connection the upstream already closed, whatever its method or body.
func TestAnUpstreamClosingIdleConnectionsCostsNoRequest(t *testing.T) {
	t.Parallel()
	var answered, closed atomic.Int64
	up := rawUpstream(t, func(conn net.Conn, _ *http.Request) {
		_, _ = io.WriteString(conn, okAnswer)
		answered.Add(1)
		time.AfterFunc(20*time.Millisecond, func() { _ = conn.Close(); closed.Add(1) })
	})
	// The upstream has closed every connection it answered on: however
	// late a loaded machine runs its timers, the next request finds them
	// closed while idle.
	allClosed := func() bool { return closed.Load() == answered.Load() }
	h := start(t, withRoute("/short", up))
	token := h.idp.Token(t, "reader")
	requests := []struct{ method, body string }{
		{http.MethodGet, ""}, {http.MethodGet, ""}, {http.MethodPost, `{"a":1}`},
		{http.MethodPut, `{"a":2}`}, {http.MethodDelete, ""}, {http.MethodGet, ""},
	}
	for i, r := range requests {
		var body io.Reader
		if r.body != "" {
			body = strings.NewReader(r.body)
		}
		resp, got := h.do(t, r.method, "/short/x", token, body)
		if resp.StatusCode != http.StatusOK || got != "ok" {
			t.Errorf("request %d (%s): %d %q, want 200 ok", i, r.method, resp.StatusCode, got)
		}
		waitFor(t, "the upstream to close its connections", allClosed)
	}

	// A restart: every pooled connection is closed at once.
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.get(t, "/short/warm", token)
		}()
	}
	wg.Wait()
	waitFor(t, "the upstream to close its connections", allClosed)
	// Now each request comes as its connection's timer runs: it finds the
	// connection closed, or loses it as it goes out and is sent again.
	for i := range 10 {
		if resp, got := h.get(t, "/short/after", token); resp.StatusCode != http.StatusOK || got != "ok" {
			t.Errorf("request %d after the restart: %d %q, want 200 ok", i, resp.StatusCode, got)
		}
	}
	// Every reuse above found its connection closed: operators see it.
	if v := metric(t, h, `gateway_upstream_stale_connections_total{route="/short"}`); v == "" || v == "0" {
		t.Errorf("stale-connection count for /short %q, want some", v)
	}
}

// An upstream may also close a kept-alive connection just as a request goes
// out on it, after the look before reuse found it idle: every keep-alive
// client has this window (an upstream whose idle timer fires as the request
// arrives, a restart). A request safe to send twice (GET, HEAD or OPTIONS,
// without a body) that got no byte of an answer on a reused connection is
// sent again on another. Any other request reached the upstream, which may
// have acted on it: it is a 502, never sent twice. So is a request lost on a
// fresh connection: that upstream is not answering.
func TestARequestLostAsTheUpstreamClosesItsConnectionIsSentAgainWhenSafe(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	answered := map[net.Conn]bool{}
	seen := map[string]int{}
	// Each connection answers its first request and closes on the second,
	// unanswered: with a FIN, or with a reset for paths ending in "rst".
	up := rawUpstream(t, func(conn net.Conn, r *http.Request) {
		mu.Lock()
		first := !answered[conn]
		answered[conn] = true
		seen[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		if first {
			_, _ = io.WriteString(conn, okAnswer)
			return
		}
		if strings.HasSuffix(r.URL.Path, "rst") {
			_ = conn.(*net.TCPConn).SetLinger(0)
		}
		_ = conn.Close()
	})
	// This one closes every connection unanswered.
	dead := rawUpstream(t, func(conn net.Conn, r *http.Request) {
		mu.Lock()
		seen[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		_ = conn.Close()
	})
	h := start(t, withRoute("/flaky", up), withRoute("/dead", dead))
	token := h.idp.Token(t, "reader")
	cases := []struct {
		method, path, body string
		status, sent       int
	}{
		{http.MethodGet, "/flaky/warm1", "", 200, 1}, // a fresh connection, pooled after
		{http.MethodGet, "/flaky/fin", "", 200, 2},   // lost on it, sent again on a fresh one
		{http.MethodHead, "/flaky/rst", "", 200, 2},  // the same, with a reset
		{http.MethodOptions, "/flaky/options", "", 200, 2},
		{http.MethodPost, "/flaky/post", `{"a":1}`, 502, 1}, // not safe
		{http.MethodGet, "/flaky/warm2", "", 200, 1},
		{http.MethodDelete, "/flaky/delete", "", 502, 1}, // idempotent, but its second answer differs
		{http.MethodGet, "/flaky/warm3", "", 200, 1},
		{http.MethodGet, "/flaky/body", "x", 502, 1}, // a body is not sent twice
		{http.MethodGet, "/dead/fresh", "", 502, 1},  // a fresh connection is not retried
	}
	for _, c := range cases {
		var body io.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
		}
		resp, got := h.do(t, c.method, c.path, token, body)
		if resp.StatusCode != c.status {
			t.Errorf("%s %s: %d %q, want %d", c.method, c.path, resp.StatusCode, got, c.status)
		}
		mu.Lock()
		sent := seen[c.method+" "+strings.TrimPrefix(strings.TrimPrefix(c.path, "/flaky"), "/dead")]
		mu.Unlock()
		if sent != c.sent {
			t.Errorf("%s %s reached the upstream %d times, want %d", c.method, c.path, sent, c.sent)
		}
	}
}

// Bytes an upstream writes on a connection outside any answer (a 408 before
// it closes an idle connection, the rest of an answer it framed wrongly)
// are never read as the answer to a later request, which may be another
// client's.
func TestBytesNoRequestAskedForAreNeverAnAnswer(t *testing.T) {
	t.Parallel()
	up := rawUpstream(t, func(conn net.Conn, r *http.Request) {
		switch r.URL.Path {
		case "/late408":
			_, _ = io.WriteString(conn, okAnswer)
			time.AfterFunc(20*time.Millisecond, func() {
				_, _ = io.WriteString(conn, "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 7\r\n\r\ntimeout")
				_ = conn.Close()
			})
		case "/misframed":
			// A 204 has no body; what follows is a whole answer of its
			// own, and the connection stays open.
			_, _ = io.WriteString(conn, "HTTP/1.1 204 No Content\r\n\r\n")
			time.AfterFunc(20*time.Millisecond, func() {
				_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nPOISONED")
			})
		default:
			_, _ = io.WriteString(conn, okAnswer)
		}
	})
	h := start(t, withRoute("/raw", up))
	token := h.idp.Token(t, "reader")
	other := &http.Client{Transport: &http.Transport{}} // another client, its own connections
	t.Cleanup(other.CloseIdleConnections)
	for _, trigger := range []string{"/raw/late408", "/raw/misframed"} {
		for i := range 3 {
			h.get(t, trigger, token)
			time.Sleep(100 * time.Millisecond)
			req, err := http.NewRequest(http.MethodGet, h.base+"/raw/victim", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := other.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK || string(got) != "ok" {
				t.Errorf("after %s (%d): the next client got %d %q, want 200 ok", trigger, i, resp.StatusCode, got)
			}
		}
	}
}

// A busy gateway never lets a kept-alive connection idle out, so without an
// age limit it would keep its connections to a Service's address for good,
// and pods an autoscaler adds behind it (kube-proxy balances connections,
// not requests) would get none of them. A connection older than
// UPSTREAM_MAX_CONN_AGE is closed once its request is done, and the next
// request dials again.
func TestAnOldUpstreamConnectionIsReplaced(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	up := rawUpstream(t, func(conn net.Conn, _ *http.Request) {
		mu.Lock()
		conns[conn] = true
		mu.Unlock()
		_, _ = io.WriteString(conn, okAnswer)
	})
	h := start(t, withRoute("/aged", up), withEnv("UPSTREAM_MAX_CONN_AGE", "300ms"))
	token := h.idp.Token(t, "reader")
	for i := range 12 { // one request every 100 ms, one at a time: one connection would do
		if resp, body := h.get(t, "/aged/x", token); resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	mu.Lock()
	n := len(conns)
	mu.Unlock()
	if n < 3 || n > 8 {
		t.Errorf("12 requests over 1.2 s used %d upstream connections; with connections closed at 300 ms of age, want 3 to 8", n)
	}
}
