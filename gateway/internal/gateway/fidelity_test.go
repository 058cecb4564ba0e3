package gateway_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// What the gateway passes between client and upstream, it passes as it
// came: it invents no header, and drops only what belongs to one
// connection.
func TestTheGatewayInventsNothingAndDropsOnlyWhatIsHopByHop(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	contentTypes := map[string][]string{}
	up := rawUpstream(t, func(conn net.Conn, r *http.Request) {
		mu.Lock()
		contentTypes[r.URL.Path] = r.Header.Values("Content-Type")
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
