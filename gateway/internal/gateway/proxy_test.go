package gateway_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestValidTokenReachesTheUpstreamIntact(t *testing.T) {
	t.Parallel()
	h := start(t)
	token := h.idp.Token(t, "jobs-admin")
	body := `{"titulo":"Analista de dados – São Paulo"}`
	resp, got := h.do(t, http.MethodPost, "/go/v1/api/v1/empregos?page=2&q=s%C3%A3o+paulo", token, strings.NewReader(body),
		"Content-Type", "application/json", "X-Test-Status", "201", "Accept-Language", "pt-BR")

	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("status = %d, want the upstream's 201; body %s", resp.StatusCode, got)
	}
	if resp.Header.Get("X-Upstream") != "jobs" || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("upstream response headers lost: %v", resp.Header)
	}
	var echoed map[string]string
	if err := json.Unmarshal([]byte(got), &echoed); err != nil || echoed["body"] != body {
		t.Fatalf("response body = %s, want the upstream's echo of the request body", got)
	}
	assertRateLimitHeaders(t, resp)

	in := h.jobs.last(t)
	checks := []struct{ what, got, want string }{
		{"method", in.Method, http.MethodPost},
		{"path", in.Path, "/api/v1/empregos"},
		{"query", in.Query, "page=2&q=s%C3%A3o+paulo"},
		{"body", in.Body, body},
		{"Authorization", in.Header.Get("Authorization"), "Bearer " + token},
		{"Content-Type", in.Header.Get("Content-Type"), "application/json"},
		{"Accept-Language", in.Header.Get("Accept-Language"), "pt-BR"},
		{"X-Client-Id", in.Header.Get("X-Client-Id"), "jobs-admin"},
		{"X-Department", in.Header.Get("X-Department"), "trabalho"},
		{"X-Request-ID", in.Header.Get("X-Request-ID"), resp.Header.Get("X-Request-ID")},
		{"X-Forwarded-For", in.Header.Get("X-Forwarded-For"), "127.0.0.1"},
		{"X-Forwarded-Prefix", in.Header.Get("X-Forwarded-Prefix"), "/go/v1"},
	}
	for _, c := range checks {
		if c.got != c.want || c.got == "" {
			t.Errorf("upstream saw %s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if n := len(h.search.requests()); n != 0 {
		t.Errorf("the search upstream received %d requests meant for jobs", n)
	}
}

func TestSpoofedIdentityHeadersNeverReachTheUpstream(t *testing.T) {
	t.Parallel()
	h := start(t)
	spoofed := []string{
		"X-Client-Id", "catalog-admin",
		"X-Department", "educacao",
		"X-Auth-User", "admin",
		"X-Auth-Request-Email", "admin@example.org",
		"X-User-Id", "1",
		"X-User-Roles", "admin",
		"X-Forwarded-User", "admin",
		"X-Forwarded-Email", "admin@example.org",
		"X-Remote-User", "admin",
		"Remote-User", "admin",
		"X_Client_Id", "catalog-admin",
		"X-Forwarded-For", "10.0.0.1",
		"Forwarded", "for=10.0.0.1",
		"X-Forwarded-Host", "evil.example",
		"X-Forwarded-Prefix", "/evil",
	}
	resp, body := h.get(t, "/search/api/v1/admin/migration/schemas", h.idp.Token(t, "reader"), spoofed...)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d; body %s", resp.StatusCode, body)
	}
	in := h.search.last(t)
	for i := 0; i < len(spoofed); i += 2 {
		name := spoofed[i]
		for _, v := range in.Header.Values(name) {
			if v == spoofed[i+1] {
				t.Errorf("the upstream received the spoofed %s: %q", name, v)
			}
		}
	}
	for name := range in.Header {
		if strings.Contains(strings.ToLower(name), "_") {
			t.Errorf("the upstream received the underscore header %s", name)
		}
	}
	if got := in.Header.Values("X-Client-Id"); len(got) != 1 || got[0] != "reader" {
		t.Errorf("X-Client-Id = %q, want only the verified reader", got)
	}
	if got := in.Header.Values("X-Department"); len(got) != 1 || got[0] != "planejamento" {
		t.Errorf("X-Department = %q, want only the verified planejamento", got)
	}
}

func TestPathsNeverEscapeTheirRoute(t *testing.T) {
	t.Parallel()
	h := start(t)
	token := h.idp.Token(t, "catalog-admin")
	tests := []struct {
		name     string
		path     string
		status   int
		upstream *upstream
		wantPath string
	}{
		{"dot-dot into another route is refused", "/search/../go/v1/api/v1/empregos", 400, nil, ""},
		{"an encoded dot-dot is refused", "/search/%2e%2e/go/v1/api/v1/empregos", 400, nil, ""},
		{"a mixed-case encoded dot-dot is refused", "/search/.%2E/go/v1/api", 400, nil, ""},
		{"an encoded slash is refused", "/search%2f..%2fgo/v1/api", 400, nil, ""},
		{"an encoded slash inside a route is refused", "/go/v1/api%2F..%2F..%2Fsearch", 400, nil, ""},
		{"an encoded backslash is refused", "/search/..%5c..%5cgo/v1", 400, nil, ""},
		{"dot-dot climbing out of the upstream's root is refused", "/go/v1/../../etc/passwd", 400, nil, ""},
		{"double slashes are normalized", "//go//v1//api/v1/empregos", 200, nil, "/api/v1/empregos"},
		{"dot segments are normalized", "/go/v1/./api/./v1/empregos", 200, nil, "/api/v1/empregos"},
		{"an encoded dot segment is normalized", "/search/%2e/api/v1/admin/services", 200, nil, "/api/v1/admin/services"},
		{"a prefix only matches whole segments", "/searchx/api", 404, nil, ""},
		{"an unknown prefix is not found", "/admin/api", 404, nil, ""},
		{"the root is not routed", "/", 404, nil, ""},
	}
	for i := range tests {
		switch {
		case strings.HasPrefix(tests[i].wantPath, "/api/v1/empregos"):
			tests[i].upstream = h.jobs
		case tests[i].wantPath != "":
			tests[i].upstream = h.search
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(h.search.requests()) + len(h.jobs.requests())
			resp, body := h.get(t, tt.path, token)
			if tt.status != http.StatusOK {
				problemBody(t, resp, body, tt.status)
				assertRateLimitHeaders(t, resp)
				if after := len(h.search.requests()) + len(h.jobs.requests()); after != before {
					t.Fatalf("an upstream was reached by %s", tt.path)
				}
				return
			}
			if resp.StatusCode != http.StatusOK || tt.upstream.last(t).Path != tt.wantPath {
				t.Fatalf("status %d; upstream %s saw %q, want %q", resp.StatusCode, tt.upstream.name, tt.upstream.last(t).Path, tt.wantPath)
			}
		})
	}
}

func TestRawPathsNoClientWouldSend(t *testing.T) {
	t.Parallel()
	h := start(t)
	token := h.idp.Token(t, "catalog-admin")
	tests := []struct {
		name   string
		target string
		want   string
	}{
		{"a literal backslash is refused", `/search/..\go/v1/api`, "400"},
		{"a NUL escape is refused", "/search/a%00b", "400"},
		{"invalid UTF-8 is refused", "/search/%ff", "400"},
		{"an asterisk target is refused", "*", "400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := h.raw(t, "GET "+tt.target+" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+token+"\r\nConnection: close\r\n\r\n")
			if !strings.Contains(line, " "+tt.want+" ") {
				t.Fatalf("status line %q, want %s", line, tt.want)
			}
		})
	}
	if n := len(h.search.requests()) + len(h.jobs.requests()); n != 0 {
		t.Fatalf("upstreams received %d of these requests", n)
	}
}

// A HEAD request is answered with the upstream's status and headers, the
// length its GET body would have, no body, and the gateway's headers; the
// connection stays usable for the next request.
func TestHeadRequestsCarryTheLengthButNoBody(t *testing.T) {
	t.Parallel()
	h := start(t)
	token := h.idp.Token(t, "reader")
	get, getBody := h.get(t, "/go/v1/api/v1/empregos", token)
	resp, body := h.do(t, http.MethodHead, "/go/v1/api/v1/empregos", token, nil)
	if resp.StatusCode != http.StatusOK || body != "" {
		t.Fatalf("HEAD: %d with body %q, want 200 and no body", resp.StatusCode, body)
	}
	if resp.ContentLength != int64(len(getBody)) || get.ContentLength != int64(len(getBody)) {
		t.Errorf("HEAD Content-Length %d, GET's %d, want the GET body's length %d", resp.ContentLength, get.ContentLength, len(getBody))
	}
	if resp.Header.Get("X-Upstream") != "jobs" {
		t.Errorf("HEAD lost the upstream's headers: %v", resp.Header)
	}
	assertRateLimitHeaders(t, resp)
	if got := h.jobs.last(t); got.Method != http.MethodHead {
		t.Errorf("the upstream got %s, want HEAD", got.Method)
	}
	if again, _ := h.get(t, "/go/v1/api/v1/empregos", token); again.StatusCode != http.StatusOK {
		t.Errorf("the request after HEAD: %d", again.StatusCode)
	}
}
