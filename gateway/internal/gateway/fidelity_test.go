package gateway_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// What the gateway passes between client and upstream, it passes as it
// came: it invents no header, and drops only what belongs to one
// connection.
func TestTheGatewayInventsNothingAndDropsOnlyWhatIsHopByHop(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	contentTypes := map[string][]string{}
	var targets []string
	up := rawUpstream(t, func(conn net.Conn, r *http.Request) {
		mu.Lock()
		contentTypes[r.URL.Path] = r.Header.Values("Content-Type")
		targets = append(targets, r.RequestURI)
		mu.Unlock()
		switch r.URL.Path {
		case "/hop":
			_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nConnection: X-Hop, keep-alive\r\nX-Hop: this connection's only\r\n"+
				"X-Kept: yes\r\nContent-Length: 2\r\n\r\nok")
		case "/chunked":
			if r.Method == http.MethodHead {
				_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
				return
			}
			_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
		default:
			_, _ = io.WriteString(conn, okAnswer)
		}
	})
	h := start(t, withRoute("/f", up))
	token := h.idp.Token(t, "reader")

	resp, _ := h.get(t, "/f/hop", token)
	if got := resp.Header.Values("X-Hop"); len(got) != 0 || resp.Header.Get("X-Kept") != "yes" {
		t.Errorf("X-Hop = %q (named in the upstream's Connection: dropped), X-Kept = %q (kept)", got, resp.Header.Get("X-Kept"))
	}

	resp, body := h.do(t, http.MethodHead, "/f/chunked", token, nil)
	if resp.StatusCode != http.StatusOK || body != "" || resp.ContentLength == 0 || resp.Header.Get("Content-Length") != "" {
		t.Errorf("HEAD of a chunked resource: %d, Content-Length %q (%d), want 200 and no length: its GET body is not empty",
			resp.StatusCode, resp.Header.Get("Content-Length"), resp.ContentLength)
	}

	for _, target := range []string{"/q?a=1&a=2&a=", "/q?%zz+x;y"} {
		mu.Lock()
		targets = targets[:0]
		mu.Unlock()
		h.get(t, "/f"+target, token)
		mu.Lock()
		if len(targets) != 1 || targets[0] != target {
			t.Errorf("the upstream got %q for %q: the query goes unchanged", targets, target)
		}
		mu.Unlock()
	}

	h.do(t, http.MethodPost, "/f/untyped", token, strings.NewReader("data"))
	h.do(t, http.MethodPost, "/f/typed", token, strings.NewReader("data"), "Content-Type", "text/csv")
	mu.Lock()
	defer mu.Unlock()
	if got := contentTypes["/untyped"]; len(got) != 0 {
		t.Errorf("a body sent without Content-Type reached the upstream with %q", got)
	}
	if got := contentTypes["/typed"]; len(got) != 1 || got[0] != "text/csv" {
		t.Errorf("Content-Type at the upstream = %q, want the client's text/csv", got)
	}
}

// HTTP/1.0 has no chunked coding (RFC 9112 6.1): an HTTP/1.0 client gets
// an answer of no stated length as its bytes, ended by the connection's
// close, with the gateway's headers as on any answer.
func TestAnHTTP10ClientGetsNoChunks(t *testing.T) {
	t.Parallel()
	up := rawUpstream(t, func(conn net.Conn, r *http.Request) {
		if r.URL.Path == "/chunked" {
			_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Kept: yes\r\nTransfer-Encoding: chunked\r\n\r\n"+
				"5\r\nfirst\r\n6\r\nsecond\r\n0\r\n\r\n")
			return
		}
		_, _ = io.WriteString(conn, okAnswer)
	})
	h := start(t, withRoute("/f", up))
	token := h.idp.Token(t, "reader")
	for path, want := range map[string]string{"/f/chunked": "firstsecond", "/f/sized": "ok"} {
		conn := h.send(t, "GET "+path+" HTTP/1.0\r\nHost: gateway\r\nAuthorization: Bearer "+token+"\r\n\r\n", 10*time.Second)
		raw, err := io.ReadAll(conn) // to the close, which ends the answer
		if err != nil {
			t.Fatalf("%s: %v after %q", path, err, raw)
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), &http.Request{Method: http.MethodGet, ProtoMajor: 1})
		if err != nil {
			t.Fatalf("%s: %v in %q", path, err, raw)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK || string(body) != want || len(resp.TransferEncoding) != 0 {
			t.Errorf("%s: %d, Transfer-Encoding %q, body %q; want 200, no chunks, %q (the answer: %q)",
				path, resp.StatusCode, resp.TransferEncoding, body, want, raw)
		}
		if resp.Header.Get("X-Request-Id") == "" || resp.Header.Get("X-Ratelimit-Limit") == "" || resp.Header.Get("Content-Type") != "text/plain" {
			t.Errorf("%s: headers %v, want the gateway's and the upstream's", path, resp.Header)
		}
	}
	// The access log does not claim an empty body for the one it did not frame.
	if logs := h.logs.String(); !strings.Contains(logs, `"path":"/f/chunked","route":"/f","status":200,"bytes":-1`) {
		t.Errorf("no access-log line with bytes -1 for the unframed answer in:\n%s", logs)
	}
}
