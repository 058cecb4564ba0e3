package gateway_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestExpectContinueKeepsTheGatewayHeadersOnTheFinalResponse(t *testing.T) {
	t.Parallel()
	h := start(t)
	token := h.idp.Token(t, "jobs-admin")
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: 10 * time.Second}}
	t.Cleanup(client.CloseIdleConnections)
	for _, status := range []int{http.StatusCreated, http.StatusUnprocessableEntity} {
		t.Run(http.StatusText(status)+" after 100 Continue carries X-Request-ID and the rate-limit headers", func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, h.base+"/go/v1/api/v1/empregos", strings.NewReader(`{"titulo":"x"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Expect", "100-continue")
			req.Header.Set("X-Test-Status", itoa(status))
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, body)
			}
			if got := h.jobs.last(t); got.Body != `{"titulo":"x"}` || got.Header.Get("Expect") != "100-continue" {
				t.Fatalf("the upstream got body %q with Expect %q; the test needs the upstream to send 100 Continue", got.Body, got.Header.Get("Expect"))
			}
			assertRateLimitHeaders(t, resp)
			if id := resp.Header.Values("X-Request-Id"); len(id) != 1 || id[0] == "" {
				t.Errorf("X-Request-ID = %q, want exactly one", id)
			}
		})
	}
}

// statusAfterHead writes a request head that expects 100-continue and sends
// no body, and returns the first status line the gateway answers.
func statusAfterHead(t *testing.T, h *harness, head string) string {
	t.Helper()
	line, err := bufio.NewReader(h.send(t, head, 10*time.Second)).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer before the body was sent: %v", err)
	}
	return strings.TrimSpace(line)
}

func TestExpectContinueIsRefusedBeforeTheBodyIsInvited(t *testing.T) {
	t.Parallel()
	h := start(t)
	token := h.idp.Token(t, "catalog-admin")
	tests := []struct {
		name, path, auth, length, want string
	}{
		{"a request without a token is a 401, not a 100", "/search/api/v1/admin/services", "", "1048000", "HTTP/1.1 401 Unauthorized"},
		{"a declared 10 GiB body is a 413, not a 100", "/search/api/v1/admin/services", "Authorization: Bearer " + token + "\r\n", "10737418240", "HTTP/1.1 413 Request Entity Too Large"},
		{"a POST to the portal is its 405, not a 100", "/docs/", "", "5000000", "HTTP/1.1 405 Method Not Allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := "POST " + tt.path + " HTTP/1.1\r\nHost: gateway\r\n" + tt.auth +
				"Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: " + tt.length + "\r\n\r\n"
			if got := statusAfterHead(t, h, head); got != tt.want {
				t.Fatalf("first status line %q, want %q", got, tt.want)
			}
		})
	}
	if n := len(h.search.requests()); n != 0 {
		t.Fatalf("the upstream received %d requests", n)
	}
}
