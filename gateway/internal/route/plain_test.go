package route

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPlainSegmentsNeedNoDecodingNorChecks holds the shortcut of
// checkSegment to what it skips: every byte plain allows decodes to itself
// and passes every check the slow path makes, and the bytes those checks
// are about ("%", "/", "\", controls, non-ASCII) are never plain.
func TestPlainSegmentsNeedNoDecodingNorChecks(t *testing.T) {
	for c := range 256 {
		seg := string([]byte{byte(c)})
		if !plain(seg) {
			continue
		}
		decoded, err := url.PathUnescape(seg)
		switch {
		case err != nil || decoded != seg:
			t.Errorf("plain byte %q decodes to %q (%v)", seg, decoded, err)
		case strings.ContainsAny(decoded, "/\\%"), !utf8.ValidString(decoded), strings.ContainsFunc(decoded, isControl):
			t.Errorf("plain byte %q is one the checks refuse", seg)
		}
	}
	for _, seg := range []string{"%2e", "a%2fb", "a\\b", "a\x00", "a\x7f", "é", "a b", "a?b", "a#b"} {
		if plain(seg) {
			t.Errorf("plain(%q) = true", seg)
		}
	}
	for _, seg := range []string{"empregos", "0193a1b2-7c4d", "a.b_c~d", "x:y@z", "a+b=c;d,e", "!$&'()*"} {
		if !plain(seg) {
			t.Errorf("plain(%q) = false", seg)
		}
	}
}
