// Package textnorm folds Portuguese text for search: lowercase, without
// accents, with whitespace collapsed, so "Certidão" and "certidao" compare equal.
package textnorm

import (
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Fold returns s lowercased, in compatibility form (ª → a), with combining
// marks and invisible characters (see Visible) removed and runs of
// whitespace collapsed to one space.
func Fold(s string) string {
	s = Visible(s)
	t := transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	folded, _, err := transform.String(t, s)
	if err != nil {
		folded = s
	}
	return strings.Join(strings.Fields(strings.ToLower(folded)), " ")
}

// Words returns the folded words of s: maximal runs of letters and digits.
func Words(s string) []string {
	return strings.FieldsFunc(Fold(s), notWord)
}

// Visible returns s without its invisible format characters (Unicode's
// Cf: zero-width space and joiners, soft hyphen, direction marks and
// embeddings, word joiner, byte order mark). Text pasted from web pages
// and documents carries them inside words: "sa\u200bude" is "saude" to a
// reader, and two words to a parser that splits on what is not a letter.
func Visible(s string) string {
	if strings.IndexFunc(s, isFormat) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isFormat(r) {
			return -1
		}
		return r
	}, s)
}

func isFormat(r rune) bool { return r >= 0xAD && unicode.Is(unicode.Cf, r) }

// Tokens returns the words of s lowercased with their accents, composed
// (NFC), without invisible characters (Visible): maximal runs of letters,
// digits and combining marks, so that Fold of each token is a word of
// Words(s) for Portuguese text.
func Tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(norm.NFC.String(Visible(s))), func(r rune) bool {
		return notWord(r) && !unicode.Is(unicode.Mn, r)
	})
}

// notWord reports whether r separates words.
func notWord(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}
