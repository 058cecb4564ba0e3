package route_test

import (
	"slices"
	"testing"

	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/problem"
)

func TestCanonicalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		escaped string
		want    []string
		trail   bool
	}{
		{"a plain path keeps its segments", "/go/v1/api/v1/empregos", []string{"go", "v1", "api", "v1", "empregos"}, false},
		{"double slashes collapse", "/go//v1///api", []string{"go", "v1", "api"}, false},
		{"dot segments are dropped", "/go/./v1/.", []string{"go", "v1"}, false},
		{"an encoded dot segment is dropped", "/go/%2e/v1/%2E", []string{"go", "v1"}, false},
		{"a trailing slash is remembered", "/search/api/", []string{"search", "api"}, true},
		{"the root has no segments", "/", nil, false},
		{"escaped letters are decoded for matching", "/s%65arch/x", []string{"search", "x"}, false},
		{"unicode segments are kept", "/search/servi%C3%A7os", []string{"search", "serviços"}, false},
		{"dots inside a name are not dot segments", "/search/...x/.env", []string{"search", "...x", ".env"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := route.Canonicalize(tt.escaped)
			if err != nil {
				t.Fatalf("Canonicalize(%q): %v", tt.escaped, err)
			}
			if !slices.Equal(p.Segments, tt.want) || p.TrailingSlash != tt.trail {
				t.Fatalf("Canonicalize(%q) = %q trailing=%v, want %q trailing=%v", tt.escaped, p.Segments, p.TrailingSlash, tt.want, tt.trail)
			}
		})
	}
}

func TestCanonicalizeRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		escaped string
	}{
		{"a dot-dot segment", "/search/../go/v1/api"},
		{"a dot-dot at the end", "/search/api/.."},
		{"an encoded dot-dot", "/search/%2e%2e/go/v1"},
		{"a half-encoded dot-dot", "/search/.%2E/go"},
		// Tomcat and the servers behind Spring drop a segment's ";"
		// parameters before they resolve dot segments: "..;" is ".." there.
		{"a dot-dot with a path parameter", "/search/..;/go/v1"},
		{"a dot-dot with an empty path parameter at the end", "/search/api/..;"},
		{"an encoded dot-dot with a path parameter", "/search/%2e%2e;x=1/go"},
		{"an encoded slash", "/search/api%2f..%2fgo"},
		{"an upper-case encoded slash", "/search%2Fapi"},
		{"an encoded backslash", "/search/%5c..%5cgo"},
		{"a literal backslash", "/search/a\\b"},
		{"an encoded NUL", "/search/a%00b"},
		{"an encoded newline", "/search/a%0d%0aSet-Cookie:x"},
		{"an invalid escape", "/search/%zz"},
		{"invalid UTF-8", "/search/%ff%fe"},
		{"a relative path", "search/api"},
		{"an asterisk", "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := route.Canonicalize(tt.escaped)
			if !problem.Is(err, problem.EMALFORMED) {
				t.Fatalf("Canonicalize(%q) = %v, want a malformed-request error", tt.escaped, err)
			}
		})
	}
}

// BenchmarkCanonicalize reads the path of a request the gateway routes.
func BenchmarkCanonicalize(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := route.Canonicalize("/go/v1/api/v1/empregos/0193a1b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b"); err != nil {
			b.Fatal(err)
		}
	}
}
