package jobs_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// FuzzUniqueName checks that the stored form of a unique name is a fixed
// point: NFC, no zero-width characters, trimmed, and the same when
// normalized again, so a name read back and sent again never conflicts
// with itself or slips past the unique index under another spelling.
func FuzzUniqueName(f *testing.F) {
	for _, s := range []string{"Médio", "Me\u0301dio", "Médio\u200b", "\ufeffTecnologia", " Te\u0301cnico\u200d ", "\u200b\u200c", "a\u200b\u0301", "\u0301", "ﬁ", "Å", "\u1e0b\u0323", "한국어", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // the decoder refuses such bodies
		}
		u := jobs.UniqueName(s)
		if again := jobs.UniqueName(u); again != u {
			t.Fatalf("UniqueName(%q) = %q, but UniqueName of that is %q", s, u, again)
		}
		if !norm.NFC.IsNormalString(u) || strings.ContainsAny(u, "\u200b\u200c\u200d\u2060\ufeff") || strings.TrimSpace(u) != u {
			t.Fatalf("UniqueName(%q) = %q is not in the stored form", s, u)
		}
	})
}
