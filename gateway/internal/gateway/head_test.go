package gateway_test

import (
	"bufio"
	"io"
	"net/http"
	"testing"
	"time"
)

// rawAnswer writes request on a fresh connection and reads the first answer.
func rawAnswer(t *testing.T, h *harness, request string) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(h.send(t, request, 10*time.Second)), nil)
	if err != nil {
		t.Fatalf("read the answer to %q: %v", request, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// A request head that fasthttp's parser reads leniently is refused by the
// gateway itself (a problem with its request id), before anything of it
// reaches an upstream. Each of these reached the upstream before, found by
// a review that wrote hostile requests without reading the code; for the
// first, the upstream here (net/http) refused the name itself, but one that
// reads names the CGI way reads "X Client-Id" as X_CLIENT_ID.
func TestHeadsRFC9110CallsInvalidNeverReachAnUpstream(t *testing.T) {
	t.Parallel()
	h := start(t)
	auth := "Authorization: Bearer " + h.idp.Token(t, "jobs-admin") + "\r\n"
	tests := []struct{ name, request string }{
		{"a space inside a header name", "GET /go/v1/api/v1/space HTTP/1.1\r\nHost: x\r\n" + auth + "X Client-Id: evil\r\n\r\n"},
		{"a transfer coding of identity", "POST /go/v1/api/v1/identity HTTP/1.1\r\nHost: x\r\n" + auth +
			"Transfer-Encoding: identity\r\nContent-Length: 5\r\n\r\nhello"},
		{"a quote in the Host", "GET /go/v1/api/v1/host HTTP/1.1\r\nHost: ev\"il\r\n" + auth + "\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawAnswer(t, h, tt.request)
			problemBody(t, resp, body, http.StatusBadRequest)
			if !resp.Close {
				t.Error("the connection stays open after a head read one way")
			}
		})
	}
	if got := h.jobs.requests(); len(got) != 0 {
		t.Fatalf("the upstream received %d requests, the first %s %s", len(got), got[0].Method, got[0].RequestURI)
	}
	// A valid head of each kind still passes.
	resp, body := rawAnswer(t, h, "POST /go/v1/api/v1/ok HTTP/1.1\r\nHost: [::1]:8080\r\n"+auth+
		"X-Token_Chars!#$%&'*+.^`|~: 1\r\nTransfer-Encoding: Chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
	if resp.StatusCode != http.StatusOK || h.jobs.last(t).Body != "hello" {
		t.Fatalf("a valid head: %d %s, upstream body %q", resp.StatusCode, body, h.jobs.last(t).Body)
	}
}
