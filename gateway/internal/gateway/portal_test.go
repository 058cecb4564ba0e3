package gateway_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestThePortalNeedsNoTokenAndSpendsNoRateLimit(t *testing.T) {
	t.Parallel()
	h := start(t, withEnv("RATE_LIMIT_UNAUTHENTICATED", "2-M"))
	for i := range 6 {
		resp, body := h.get(t, "/docs/", "")
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "swagger-ui-bundle.js") {
			t.Fatalf("GET /docs/ #%d without a token: %s", i+1, resp.Status)
		}
		if names := gatewayHeaders(resp, true); len(names) > 0 {
			t.Fatalf("GET /docs/ carries rate-limit headers %v: it was counted", names)
		}
		if resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("X-Request-Id") == "" {
			t.Fatalf("GET /docs/ lacks the security headers or the request id: %v", resp.Header)
		}
	}
	// Six page views later the address still has its whole budget for
	// requests without a token: the first is a 401, not a 429.
	resp, _ := h.get(t, "/go/v1/api/v1/escolaridades", "")
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Fatalf("first unauthenticated API request after the portal: %s, remaining %q; want 401 with 1 left",
			resp.Status, resp.Header.Get("X-RateLimit-Remaining"))
	}
	// The portal's metrics share one route label.
	_, metrics := h.admin(t, "/metrics")
	if !strings.Contains(metrics, `route="/docs"`) {
		t.Error("no http_requests_total series for route /docs")
	}
}

func TestThePortalRefusesPathsARoutedRequestCannotHave(t *testing.T) {
	t.Parallel()
	h := start(t)
	for _, path := range []string{
		"/docs/api/go%2fv1/openapi.json", // an encoded "/" the portal's net/http would decode
		"/docs%2f",                       // the page, through an encoded "/"
		"/docs/assets/swagger-ui%2f..%2f..%2fportal.js", // ".." behind encoded slashes
		"/docs/assets/swagger-ui/%2e%2e/portal.js",      // an encoded ".."
		"/docs/assets%5cportal.js",                      // an encoded "\"
	} {
		head := "GET " + path + " HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\n\r\n"
		if got := statusAfterHead(t, h, head); got != "HTTP/1.1 400 Bad Request" {
			t.Errorf("GET %s: %q, want the 400 of a routed path", path, got)
		}
	}
	for _, path := range []string{"/docs/", "/docs/assets/portal.js"} {
		if resp, _ := h.get(t, path, ""); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s, want 200", path, resp.Status)
		}
	}
}
