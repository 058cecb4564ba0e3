package route_test

import (
	"strings"
	"testing"

	"github.com/municipal-apis/platform/gateway/internal/route"
)

func TestMatchAndStrip(t *testing.T) {
	t.Parallel()
	table, err := route.Parse(route.DefaultRoutes + ",/go=http://127.0.0.1:9000/base")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		escaped     string
		wantPrefix  string
		wantPath    string
		wantEscaped string
	}{
		{"the search prefix is stripped", "/search/api/v1/admin/services", "/search", "/api/v1/admin/services", "/api/v1/admin/services"},
		{"the longest prefix wins", "/go/v1/api/v1/empregos", "/go/v1", "/api/v1/empregos", "/api/v1/empregos"},
		{"a shorter prefix takes the rest", "/go/v2/x", "/go", "/v2/x", "/v2/x"},
		{"the bare prefix forwards the root", "/search", "/search", "/", "/"},
		{"the prefix with a slash forwards the root", "/search/", "/search", "/", "/"},
		{"escapes are forwarded as sent", "/search/a%20b/servi%C3%A7o/", "/search", "/a b/serviço/", "/a%20b/servi%C3%A7o/"},
		{"normalized paths are forwarded normalized", "/go//v1/./api//x", "/go/v1", "/api/x", "/api/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := route.Canonicalize(tt.escaped)
			if err != nil {
				t.Fatal(err)
			}
			r, ok := table.Match(p)
			if !ok || r.Prefix != tt.wantPrefix {
				t.Fatalf("Match(%q) = %q, %v; want %q", tt.escaped, r.Prefix, ok, tt.wantPrefix)
			}
			dec, esc := r.Strip(p)
			if dec != tt.wantPath || esc != tt.wantEscaped {
				t.Fatalf("Strip(%q) = %q, %q; want %q, %q", tt.escaped, dec, esc, tt.wantPath, tt.wantEscaped)
			}
		})
	}
}

func TestMatchNeedsWholeSegments(t *testing.T) {
	t.Parallel()
	table, err := route.Parse(route.DefaultRoutes)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/searchx", "/searchx/api", "/go/v10/api", "/go", "/", "/SEARCH/api", "/gov1"} {
		t.Run(path+" matches no route", func(t *testing.T) {
			t.Parallel()
			p, err := route.Canonicalize(path)
			if err != nil {
				t.Fatal(err)
			}
			if r, ok := table.Match(p); ok {
				t.Fatalf("Match(%q) = %q, want no route", path, r.Prefix)
			}
		})
	}
}

func TestParseRejectsBadTables(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		table string
	}{
		{"an empty table", " , "},
		{"an entry without =", "/search"},
		{"a relative prefix", "search=http://127.0.0.1:8081"},
		{"the root prefix", "/=http://127.0.0.1:8081"},
		{"a prefix with dot-dot", "/a/../b=http://127.0.0.1:8081"},
		{"an escaped prefix", "/se%61rch=http://127.0.0.1:8081"},
		{"a duplicate prefix", "/a=http://127.0.0.1:1,/a/=http://127.0.0.1:2"},
		{"a non-http upstream", "/a=ftp://127.0.0.1:8081"},
		{"an upstream without host", "/a=http:///x"},
		{"an upstream with a query", "/a=http://127.0.0.1:8081/?x=1"},
		{"an upstream with credentials", "/a=http://u:p@127.0.0.1:8081"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := route.Parse(tt.table); err == nil {
				t.Fatalf("Parse(%q) succeeded", tt.table)
			}
		})
	}
}

// A refused routing table is logged where the program fails to start: its
// error must not carry the password an upstream URL was given.
func TestParseErrorsMaskAnUpstreamsCredentials(t *testing.T) {
	t.Parallel()
	for _, table := range []string{
		"/a=http://u:RouteS3cret@127.0.0.1:8081",
		"/a=http://u:RouteS3cret@127.0.0.1:8081/base",
		"/a/../b=http://u:RouteS3cret@127.0.0.1:8081",
		"/a=http://u:RouteS3cret@127.0.0.1:8081/%zz",
		"/a=http://u:Route@S3cret@127.0.0.1:8081",
	} {
		_, err := route.Parse(table)
		if err == nil || strings.Contains(err.Error(), "S3cret") || !strings.Contains(err.Error(), "http://***@127.0.0.1:8081") {
			t.Errorf("Parse(%q): %v", table, err)
		}
	}
}

func TestParseRoundTrips(t *testing.T) {
	t.Parallel()
	table, err := route.Parse(" /search = http://127.0.0.1:8081 ,/go/v1/=http://127.0.0.1:8082")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := table.String(), "/go/v1=http://127.0.0.1:8082,/search=http://127.0.0.1:8081"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
}
