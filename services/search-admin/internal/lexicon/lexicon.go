// Package lexicon knows the words of Brazilian Portuguese: whether a folded
// word (lowercase, no accents) is one, how it is spelt with its accents, and
// its singular and plural. Search uses it to correct only words that are
// not words, to put back the accents a citizen left out, and to look up
// every number of a noun.
//
// The words come from Debian's wbrazilian word list (br.ispell, GPL-2),
// compressed into pt_br.txt.gz by generate.sh and embedded in the binary,
// so nothing is read from the machine at run time.
package lexicon

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/municipal-apis/platform/services/search-admin/internal/textnorm"
)

//go:embed pt_br.txt.gz
var compressed []byte

// Lexicon is a sorted list of folded words, each with its spellings.
type Lexicon struct {
	// text holds one line per folded word, sorted bytewise: the folded
	// word alone when it is its only spelling, else followed by every
	// spelling, separated by spaces.
	text string
	// lines holds the offset of each line in text.
	lines []uint32
}

// Default returns the embedded Brazilian Portuguese lexicon, loaded on the
// first call (about 260,000 folded words, 4 MB in memory).
var Default = sync.OnceValues(func() (*Lexicon, error) {
	return Parse(bytes.NewReader(compressed))
})

// Parse reads a lexicon in the format generate writes.
func Parse(r io.Reader) (*Lexicon, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	lx := &Lexicon{text: string(raw)}
	for off := 0; off < len(raw); {
		lx.lines = append(lx.lines, uint32(off))
		end := bytes.IndexByte(raw[off:], '\n')
		if end < 0 {
			return nil, fmt.Errorf("lexicon: line %d has no end", len(lx.lines))
		}
		off += end + 1
	}
	for i := 1; i < len(lx.lines); i++ {
		if lx.key(i-1) >= lx.key(i) {
			return nil, fmt.Errorf("lexicon: line %d is out of order", i+1)
		}
	}
	return lx, nil
}

// Len returns how many folded words the lexicon holds.
func (lx *Lexicon) Len() int { return len(lx.lines) }

// line returns line i without its newline.
func (lx *Lexicon) line(i int) string {
	end := len(lx.text)
	if i+1 < len(lx.lines) {
		end = int(lx.lines[i+1])
	}
	return lx.text[lx.lines[i] : end-1]
}

// key returns the folded word of line i.
func (lx *Lexicon) key(i int) string {
	key, _, _ := strings.Cut(lx.line(i), " ")
	return key
}

// find returns the line of the folded word, or -1.
func (lx *Lexicon) find(folded string) int {
	lo, hi := 0, len(lx.lines)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if lx.key(mid) < folded {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(lx.lines) && lx.key(lo) == folded {
		return lo
	}
	return -1
}

// Known reports whether folded (lowercase, without accents) is a word,
// with or without its accents.
func (lx *Lexicon) Known(folded string) bool { return folded != "" && lx.find(folded) >= 0 }

// Spellings returns the words whose folded form is folded, accents
// included ("acao" → ação; "baia" → baia, baía), or nil when it is none.
func (lx *Lexicon) Spellings(folded string) []string {
	i := lx.find(folded)
	if i < 0 {
		return nil
	}
	key, rest, ok := strings.Cut(lx.line(i), " ")
	if !ok {
		return []string{key}
	}
	return strings.Fields(rest)
}

// IsWord reports whether w, lowercase with its accents, is a word.
func (lx *Lexicon) IsWord(w string) bool {
	return slices.Contains(lx.Spellings(textnorm.Fold(w)), w)
}

// Numbers returns the other grammatical number of the folded word (the
// singular of a plural, the plurals of a singular) as words with their
// accents: "inscricoes" → inscrição; "animal" → animais. Candidates come
// from the regular Portuguese plural endings and are kept only when they
// are words.
func (lx *Lexicon) Numbers(folded string) []string {
	var out []string
	for _, c := range numberCandidates(folded) {
		for _, w := range lx.Spellings(c) {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// pluralToSingular and singularToPlural are the regular number endings of
// Portuguese, folded: a word ending in the first takes the second.
var (
	pluralToSingular = [][2]string{
		{"oes", "ao"}, {"aes", "ao"}, {"ais", "al"}, {"eis", "el"}, {"eis", "il"}, {"ois", "ol"},
		{"uis", "ul"}, {"is", "il"}, {"ns", "m"}, {"res", "r"}, {"zes", "z"}, {"ses", "s"}, {"s", ""},
	}
	singularToPlural = [][2]string{
		{"ao", "oes"}, {"ao", "aes"}, {"ao", "aos"}, {"al", "ais"}, {"el", "eis"}, {"il", "is"}, {"il", "eis"},
		{"ol", "ois"}, {"ul", "uis"}, {"m", "ns"}, {"r", "res"}, {"z", "zes"}, {"s", "ses"},
		{"a", "as"}, {"e", "es"}, {"i", "is"}, {"o", "os"}, {"u", "us"},
	}
)

// numberCandidates returns the folded words the endings turn folded into.
func numberCandidates(folded string) []string {
	var out []string
	for _, rules := range [][][2]string{pluralToSingular, singularToPlural} {
		for _, r := range rules {
			if stem, ok := strings.CutSuffix(folded, r[0]); ok && stem != "" && !slices.Contains(out, stem+r[1]) {
				out = append(out, stem+r[1])
			}
		}
	}
	return out
}
