package server_test

import (
	"net/http/httptest"
	"testing"

	"github.com/municipal-apis/platform/pkg/server"
)

func TestPublicPathHonoursOnlyCleanForwardedPrefixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, prefix, want string
	}{
		{"no prefix leaves the path alone", "", "/api/v1/empregos/1"},
		{"the gateway's jobs prefix is prepended", "/go/v1", "/go/v1/api/v1/empregos/1"},
		{"the gateway's search prefix is prepended", "/search", "/search/api/v1/empregos/1"},
		{"an absolute URL is ignored", "https://evil.example", "/api/v1/empregos/1"},
		{"a protocol-relative prefix is ignored", "//evil.example", "/api/v1/empregos/1"},
		{"dot segments are ignored", "/go/../admin", "/api/v1/empregos/1"},
		{"a trailing slash is ignored", "/go/v1/", "/api/v1/empregos/1"},
		{"header injection is ignored", "/go\r\nSet-Cookie: a=b", "/api/v1/empregos/1"},
		{"unicode is ignored", "/serviços", "/api/v1/empregos/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/api/v1/empregos", nil)
			if tt.prefix != "" {
				r.Header.Set(server.ForwardedPrefixHeader, tt.prefix)
			}
			if got := server.PublicPath(r, "/api/v1/empregos/1"); got != tt.want {
				t.Fatalf("PublicPath = %q, want %q", got, tt.want)
			}
		})
	}
}
