package route_test

import (
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/hostiletest"
	"github.com/municipal-apis/platform/pkg/problem"
)

// FuzzCanonicalPathsStayInTheirRoute canonicalizes arbitrary request paths
// and routes them with the default table plus a nested prefix. A path is
// refused with a 400, or its segments are plain (no empty, ".", ".." or
// separator-holding segment, valid UTF-8, no control characters), the route
// it matches owns its first segments whole, and the path forwarded upstream
// means exactly the segments below the prefix: decoding and cleaning it on
// the upstream side neither climbs out nor changes it.
func FuzzCanonicalPathsStayInTheirRoute(f *testing.F) {
	for _, c := range hostiletest.Paths(f) {
		f.Add(c.Path)
	}
	for _, p := range []string{"/search/api/v1/search", "/go/v1/api/v1/empregos/7", "/go/v1/../search", "/go/v1/%2e%2e/x", "/go/v1/a%2fb", "/searchx", "/go/v1/admin/x/", "//go//v1//"} {
		f.Add(p)
	}
	table, err := route.Parse(route.DefaultRoutes + ",/go/v1/admin=http://127.0.0.1:9/internal")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, escaped string) {
		p, err := route.Canonicalize(escaped)
		if err != nil {
			if !problem.Is(err, problem.EMALFORMED) {
				t.Fatalf("Canonicalize(%q): %v is not a 400", escaped, err)
			}
			return
		}
		for _, s := range p.Segments {
			if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\\") || !utf8.ValidString(s) ||
				strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("Canonicalize(%q) kept the segment %q", escaped, s)
			}
		}
		r, ok := table.Match(p)
		if !ok {
			return
		}
		prefix := strings.Split(strings.TrimPrefix(r.Prefix, "/"), "/")
		if !p.HasPrefix(prefix) {
			t.Fatalf("%q matched %s without lying under it", escaped, r.Prefix)
		}
		for _, other := range table {
			longer := strings.Split(strings.TrimPrefix(other.Prefix, "/"), "/")
			if len(longer) > len(prefix) && p.HasPrefix(longer) {
				t.Fatalf("%q matched %s although the longer %s holds it", escaped, r.Prefix, other.Prefix)
			}
		}
		decoded, forwarded := r.Strip(p)
		rest := p.Segments[len(prefix):]
		unescaped, err := url.PathUnescape(forwarded)
		if err != nil || unescaped != decoded {
			t.Fatalf("%q forwards %q, which decodes to %q (%v), not %q", escaped, forwarded, unescaped, err, decoded)
		}
		if got := strings.Split(strings.Trim(decoded, "/"), "/"); len(rest) > 0 && !slices.Equal(got, rest) {
			t.Fatalf("%q forwards %q: segments %q, want %q", escaped, decoded, got, rest)
		}
		if clean := path.Clean(decoded); clean != strings.TrimSuffix(decoded, "/") && clean != decoded {
			t.Fatalf("%q forwards %q, which an upstream cleans to %q", escaped, decoded, clean)
		}
		again, err := route.Canonicalize(forwarded)
		if err != nil || !slices.Equal(again.Segments, rest) {
			t.Fatalf("%q forwards %q, which canonicalizes to %q (%v), not %q", escaped, forwarded, again.Segments, err, rest)
		}
	})
}
