package gateway_test

import (
	"net/http"
	"strconv"
	"testing"
)

// exhausts sends n unauthenticated requests, the i-th with the headers
// header(i), and returns how many were refused with 429.
func exhausts(t *testing.T, h *harness, n int, header func(i int) []string) int {
	t.Helper()
	refused := 0
	for i := range n {
		resp, _ := h.get(t, "/search/api/v1/admin/migration/schemas", "", header(i)...)
		switch resp.StatusCode {
		case http.StatusTooManyRequests:
			refused++
		case http.StatusUnauthorized:
		default:
			t.Fatalf("request %d: status %d, want 401 or 429", i+1, resp.StatusCode)
		}
		assertRateLimitHeaders(t, resp)
	}
	return refused
}

func TestTheUnauthenticatedLimitIsKeyedOnTheClientNeverOnAnAddressItChose(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     []string
		header  func(i int) []string
		n       int
		refused int
	}{
		{"rotating X-Forwarded-For without a trusted proxy is keyed on the peer (61st of 70 refused)", nil,
			func(i int) []string { return []string{"X-Forwarded-For", "203.0.113." + strconv.Itoa(i+1)} }, 70, 10},
		{"rotating X-Real-IP is keyed on the peer (61st of 70 refused)", nil,
			func(i int) []string { return []string{"X-Real-IP", "198.51.100." + strconv.Itoa(i+1)} }, 70, 10},
		{"loopback claimed in every client-IP header earns no exemption", []string{"RATE_LIMIT_UNAUTHENTICATED", "3-M"},
			func(int) []string {
				return []string{"X-Forwarded-For", "127.0.0.1", "X-Real-IP", "127.0.0.1", "True-Client-IP", "127.0.0.1", "Forwarded", "for=127.0.0.1"}
			}, 5, 2},
		{"behind a trusted proxy a spoofed leftmost entry does not make a new bucket", []string{"RATE_LIMIT_UNAUTHENTICATED", "3-M", "TRUSTED_PROXIES", "127.0.0.1"},
			func(i int) []string {
				return []string{"X-Forwarded-For", "1.1.1." + strconv.Itoa(i+1) + ", 203.0.113.9"}
			}, 5, 2},
		{"a chain of trusted hops is keyed on the peer, not on its leftmost address", []string{"RATE_LIMIT_UNAUTHENTICATED", "3-M", "TRUSTED_PROXIES", "127.0.0.0/8,10.0.0.0/8"},
			func(i int) []string { return []string{"X-Forwarded-For", "10.0.0." + strconv.Itoa(i+1)} }, 5, 2},
		{"one trusted hop: each address the proxy saw has its own bucket", []string{"RATE_LIMIT_UNAUTHENTICATED", "3-M", "TRUSTED_PROXY_HOPS", "1"},
			func(i int) []string { return []string{"X-Forwarded-For", "9.9.9.9, 203.0.113." + strconv.Itoa(i+1)} }, 5, 0},
		{"one trusted hop: the client's own entries do not make new buckets", []string{"RATE_LIMIT_UNAUTHENTICATED", "3-M", "TRUSTED_PROXY_HOPS", "1"},
			func(i int) []string {
				return []string{"X-Forwarded-For", "9.9.9." + strconv.Itoa(i+1) + ", 203.0.113.50"}
			}, 5, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, withEnv(tt.env...))
			if got := exhausts(t, h, tt.n, tt.header); got != tt.refused {
				t.Fatalf("%d of %d requests refused, want %d", got, tt.n, tt.refused)
			}
		})
	}
}
