package route_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/hostiletest"
	"github.com/municipal-apis/platform/pkg/problem"
)

// upstreamRE reads a case that names one outcome: "route to jobs, upstream
// path /api/v1/empregos" or "route to search-admin with upstream /x".
var upstreamRE = regexp.MustCompile(`^route to (jobs|search-admin)(?:,| with)? upstream(?: path)? (/\S*)`)

// TestHostilePathsRouteWhereTheyMay canonicalizes and routes every case of
// testdata/hostile/paths.json (the path before any query, as the gateway
// sees it) under the default table: a refusal is a 400; a case that rules
// out an upstream never reaches it; a case kept from every upstream matches
// none (but a bare prefix, which forwards "/"); and a case that names one
// route and upstream path gets exactly that.
func TestHostilePathsRouteWhereTheyMay(t *testing.T) {
	t.Parallel()
	table, err := route.Parse(route.DefaultRoutes)
	if err != nil {
		t.Fatal(err)
	}
	prefixOf := map[string]string{"jobs": "/go/v1", "search-admin": "/search"}
	for _, c := range hostiletest.Paths(t) {
		if c.Form != "" {
			continue // absolute and asterisk forms never reach Canonicalize as such
		}
		t.Run(c.Why, func(t *testing.T) {
			escaped, _, _ := strings.Cut(c.Path, "?")
			p, err := route.Canonicalize(escaped)
			if err != nil {
				if !problem.Is(err, problem.EMALFORMED) {
					t.Fatalf("Canonicalize(%q): %v is not a 400", escaped, err)
				}
				return
			}
			r, matched := table.Match(p)
			for name, prefix := range prefixOf {
				ruledOut := strings.Contains(c.Expect, "never "+name) && !strings.Contains(c.Expect, "never "+name+"'s")
				if ruledOut && matched && r.Prefix == prefix {
					t.Errorf("%q routes to %s (%s)", c.Path, name, c.Expect)
				}
			}
			// A bare prefix forwards "/", which no upstream serves: a 404 too,
			// though from the upstream.
			bare := matched && len(p.Segments) == strings.Count(r.Prefix, "/")
			if strings.HasPrefix(c.Expect, "404 at the gateway (no upstream call)") && matched && !bare {
				t.Errorf("%q routes to %s (%s)", c.Path, r.Prefix, c.Expect)
			}
			if m := upstreamRE.FindStringSubmatch(c.Expect); m != nil && !strings.Contains(c.Expect, " or ") {
				decoded, forwarded := "", ""
				if matched {
					decoded, forwarded = r.Strip(p)
				}
				if !matched || r.Prefix != prefixOf[m[1]] || (decoded != m[2] && forwarded != m[2]) {
					t.Errorf("%q routes to %q with upstream %q (%q), want %s %s", c.Path, r.Prefix, decoded, forwarded, m[1], m[2])
				}
			}
		})
	}
}
