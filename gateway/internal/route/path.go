package route

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Path is a request path in canonical form: no empty, "." or ".." segments,
// no encoded separators, each segment kept as the client escaped it.
type Path struct {
	// Segments are the decoded segments, used for matching.
	Segments []string
	// Escaped are the same segments as the client escaped them, used for forwarding.
	Escaped []string
	// TrailingSlash records that the client's path ended with "/".
	TrailingSlash bool
}

// Canonicalize turns the escaped path of a request into a Path.
//
// Harmless oddities are normalized: "//" and "." segments (also written
// "%2e") are dropped. Anything that could make the path mean something else
// to an upstream is rejected with a 400: ".." in any spelling (with ";"
// parameters too), encoded "/"
// or "\" (%2f, %5c), a literal backslash, control characters, invalid
// escapes or UTF-8, and paths that do not start with "/".
func Canonicalize(escaped string) (Path, error) {
	if !strings.HasPrefix(escaped, "/") {
		return Path{}, problem.Errorf(problem.EMALFORMED, "the request path must start with /")
	}
	// Both lists share one backing array, sized for every segment, rather
	// than growing by appends on every request.
	n := strings.Count(escaped, "/")
	both := make([]string, 2*n)
	p := Path{Segments: both[:0:n], Escaped: both[n : n : 2*n]}
	for seg := range strings.SplitSeq(escaped[1:], "/") {
		decoded, err := checkSegment(seg)
		if err != nil {
			return Path{}, err
		}
		if decoded == "" || decoded == "." {
			continue
		}
		p.Segments = append(p.Segments, decoded)
		p.Escaped = append(p.Escaped, seg)
	}
	p.TrailingSlash = len(p.Segments) > 0 && strings.HasSuffix(escaped, "/")
	return p, nil
}

// checkSegment decodes one escaped segment and rejects the dangerous ones.
func checkSegment(seg string) (string, error) {
	if plain(seg) { // nothing to decode, nothing dangerous but ".."
		if isDotDot(seg) {
			return "", dotDot()
		}
		return seg, nil
	}
	decoded, err := url.PathUnescape(seg)
	if err != nil {
		return "", problem.Errorf(problem.EMALFORMED, "the request path has an invalid percent-escape")
	}
	switch {
	case isDotDot(decoded):
		return "", dotDot()
	case strings.ContainsAny(decoded, "/\\"):
		return "", problem.Errorf(problem.EMALFORMED, "the request path must not contain encoded slashes or backslashes")
	case !utf8.ValidString(decoded):
		return "", problem.Errorf(problem.EMALFORMED, "the request path is not valid UTF-8")
	case strings.ContainsFunc(decoded, isControl):
		return "", problem.Errorf(problem.EMALFORMED, "the request path must not contain control characters")
	}
	return decoded, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// isDotDot reports whether the decoded segment seg is ".." to some server:
// itself, or followed by ";" parameters, which Tomcat (and so the Java
// servers behind Spring) drops before it resolves dot segments, so that
// "/api/..;/admin" is "/admin" there.
func isDotDot(seg string) bool {
	return seg == ".." || strings.HasPrefix(seg, "..;")
}

// dotDot is the refusal of a ".." segment, in any spelling.
func dotDot() error {
	return problem.Errorf(problem.EMALFORMED, "the request path must not contain .. segments")
}

// plain reports whether seg holds only ASCII letters, digits and the
// characters of a path segment that no decoding changes and no check
// refuses (RFC 3986 pchar without "%"): seg decoded is seg itself. Most
// segments are plain, and this one pass over them was the whole check,
// where decoding and four more scans had been.
func plain(seg string) bool {
	for i := 0; i < len(seg); i++ {
		if !pchar[seg[i]] {
			return false
		}
	}
	return true
}

// pchar marks the bytes plain allows.
var pchar = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "-._~!$&'()*+,;=:@" {
		t[c] = true
	}
	return t
}()

// HasPrefix reports whether the first segments of p are exactly prefix.
func (p Path) HasPrefix(prefix []string) bool {
	if len(prefix) > len(p.Segments) {
		return false
	}
	for i, s := range prefix {
		if p.Segments[i] != s {
			return false
		}
	}
	return true
}

// Rest returns the path below the first n segments as a URL path and its
// escaped form, always starting with "/".
func (p Path) Rest(n int) (decoded, escaped string) {
	trailing := p.TrailingSlash && n < len(p.Segments)
	escaped = join(p.Escaped[n:], trailing)
	for i, s := range p.Segments[n:] {
		if s != p.Escaped[n+i] {
			return join(p.Segments[n:], trailing), escaped
		}
	}
	return escaped, escaped // nothing was escaped: one string serves both
}

// join is "/" + strings.Join(segs, "/"), and a trailing "/" when asked,
// built in one allocation.
func join(segs []string, trailing bool) string {
	size := 1
	for _, s := range segs {
		size += len(s) + 1
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteByte('/')
	for i, s := range segs {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(s)
	}
	if trailing {
		b.WriteByte('/')
	}
	return b.String()
}
