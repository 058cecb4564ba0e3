package postgres

import (
	"strings"
	"unicode"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// tsquery writes terms in the input syntax of the tsquery type: each lexeme
// quoted, alternatives of a term OR-ed, lexemes of an alternative AND-ed,
// and the terms AND-ed when every one must match, else OR-ed. A lexeme
// with anything but letters, digits and combining marks is left out, so no
// search text can add an operator, a weight or a prefix. The empty string
// means the terms hold no lexeme.
func tsquery(terms []catalog.Term, every bool) string {
	op := " | "
	if every {
		op = " & "
	}
	parts := make([]string, 0, len(terms))
	for _, term := range terms {
		if t := termQuery(term); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, op)
}

// termQuery writes one term, parenthesized when it has several parts.
func termQuery(term catalog.Term) string {
	alts := make([]string, 0, len(term))
	for _, alt := range term {
		lexemes := make([]string, 0, len(alt))
		for _, l := range alt {
			if q := lexemeQuery(l); q != "" {
				lexemes = append(lexemes, q)
			}
		}
		if len(lexemes) == 1 {
			alts = append(alts, lexemes[0])
		} else if len(lexemes) > 1 {
			alts = append(alts, "("+strings.Join(lexemes, " & ")+")")
		}
	}
	switch len(alts) {
	case 0:
		return ""
	case 1:
		return alts[0]
	default:
		return "(" + strings.Join(alts, " | ") + ")"
	}
}

// lexemeQuery quotes l, with ":*" when it is a prefix; empty when l is not
// a whitelisted lexeme.
func lexemeQuery(l catalog.Lexeme) string {
	if !isLexeme(l.Text) {
		return ""
	}
	q := "'" + l.Text + "'"
	if l.Prefix {
		q += ":*"
	}
	return q
}

// isLexeme reports whether s is made of letters, digits and combining
// marks only, none of which is tsquery syntax.
func isLexeme(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.M, r) {
			return false
		}
	}
	return true
}
