package postgres

import (
	"strings"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// tsquery writes terms in the input syntax of the tsquery type, AND-ed when
// every one must match, else OR-ed: each lexeme quoted (with ":*" when a
// prefix), the parts of a match AND-ed or OR-ed in parentheses. A lexeme
// with anything but letters, digits and combining marks is left out, so no
// search text can add an operator, a weight or a prefix. The empty string
// means the terms hold no lexeme.
func tsquery(terms []catalog.Match, every bool) string {
	op := " | "
	if every {
		op = " & "
	}
	return join(terms, op)
}

// join writes each of parts and joins those that hold a lexeme with op.
func join(parts []catalog.Match, op string) string {
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if q := matchQuery(p); q != "" {
			out = append(out, q)
		}
	}
	return strings.Join(out, op)
}

// matchQuery writes one match, parenthesized when it has several parts.
func matchQuery(m catalog.Match) string {
	op, parts := " & ", m.All
	if len(m.Any) > 0 {
		op, parts = " | ", m.Any
	}
	if len(parts) == 0 {
		return lexemeQuery(m.Lexeme, m.Prefix)
	}
	q := join(parts, op)
	if strings.Contains(q, op) {
		q = "(" + q + ")"
	}
	return q
}

// lexemeQuery quotes lexeme, with ":*" when it is a prefix; empty when it is
// not a whitelisted lexeme.
func lexemeQuery(lexeme string, prefix bool) string {
	if !catalog.IsLexeme(lexeme) {
		return ""
	}
	q := "'" + lexeme + "'"
	if prefix {
		q += ":*"
	}
	return q
}
