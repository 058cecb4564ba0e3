// Package route maps canonical request paths to upstreams by whole-segment
// path prefix.
package route

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// DefaultRoutes is the routing table used when ROUTES is not set.
const DefaultRoutes = "/search=http://127.0.0.1:8081,/go/v1=http://127.0.0.1:8082"

// Route sends requests under Prefix to Upstream with the prefix stripped.
type Route struct {
	Prefix   string
	Upstream *url.URL
	segments []string
}

// Table is a set of routes, longest prefix first.
type Table []Route

// Parse reads a table written as "prefix=upstream,prefix=upstream".
func Parse(s string) (Table, error) {
	var t Table
	seen := map[string]bool{}
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		r, err := parseRoute(entry)
		if err != nil {
			return nil, err
		}
		if seen[r.Prefix] {
			return nil, fmt.Errorf("route %q: prefix %s appears twice", entry, r.Prefix)
		}
		seen[r.Prefix] = true
		t = append(t, r)
	}
	if len(t) == 0 {
		return nil, fmt.Errorf("the routing table %q has no routes", s)
	}
	slices.SortStableFunc(t, func(a, b Route) int { return len(b.segments) - len(a.segments) })
	return t, nil
}

// EnvDecode lets go-envconfig read a Table from ROUTES.
func (t *Table) EnvDecode(val string) error {
	parsed, err := Parse(val)
	if err != nil {
		return err
	}
	*t = parsed
	return nil
}

// parseRoute reads one "prefix=upstream" entry. Its errors show the entry
// with the upstream's credentials masked: they end up in logs.
func parseRoute(entry string) (Route, error) {
	prefix, upstream, ok := strings.Cut(entry, "=")
	if !ok {
		return Route{}, fmt.Errorf("route %q: want prefix=upstream", masked(entry))
	}
	p, err := Canonicalize(strings.TrimSpace(prefix))
	if err != nil || len(p.Segments) == 0 || strings.Join(p.Escaped, "/") != strings.Join(p.Segments, "/") {
		return Route{}, fmt.Errorf("route %q: the prefix must be a plain absolute path below /", masked(entry))
	}
	u, err := url.Parse(strings.TrimSpace(upstream))
	if err != nil {
		// url.Parse's error quotes the URL whole, credentials included.
		return Route{}, fmt.Errorf("route %q: the upstream does not parse as a URL", masked(entry))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return Route{}, fmt.Errorf("route %q: the upstream must be an http(s) URL without credentials, query or fragment", masked(entry))
	}
	return Route{Prefix: "/" + strings.Join(p.Segments, "/"), Upstream: u, segments: p.Segments}, nil
}

// masked is a route entry with what stands before an "@" in its
// upstream's authority (user:password) replaced by "***".
func masked(entry string) string {
	scheme := strings.Index(entry, "://")
	if scheme < 0 {
		return entry
	}
	rest := entry[scheme+3:]
	authority := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority = rest[:end]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return entry
	}
	return entry[:scheme+3] + "***" + rest[at:]
}

// Match returns the route with the longest prefix that p lies under.
func (t Table) Match(p Path) (Route, bool) {
	for _, r := range t {
		if p.HasPrefix(r.segments) {
			return r, true
		}
	}
	return Route{}, false
}

// Strip returns the path p is forwarded with under r: decoded and escaped.
func (r Route) Strip(p Path) (decoded, escaped string) {
	return p.Rest(len(r.segments))
}

// String writes the table back in the ROUTES form.
func (t Table) String() string {
	parts := make([]string, len(t))
	for i, r := range t {
		parts[i] = r.Prefix + "=" + r.Upstream.String()
	}
	return strings.Join(parts, ",")
}
