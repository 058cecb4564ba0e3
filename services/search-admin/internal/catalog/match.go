package catalog

import (
	"slices"
	"strings"
)

// Match is a full-text condition on a search document, built from lexemes
// as documents store them (stemmed, folded, letters and digits only): one
// lexeme (also as a prefix when Prefix is set), or every part of All, or any
// part of Any. The zero Match matches nothing and is left out.
type Match struct {
	Lexeme string
	Prefix bool
	All    []Match
	Any    []Match
}

// IsZero reports whether m holds no lexeme.
func (m Match) IsZero() bool { return m.Lexeme == "" && len(m.All) == 0 && len(m.Any) == 0 }

// allOf matches every one of lexemes; the zero Match when there is none.
func allOf(lexemes []string, prefix bool) Match {
	parts := make([]Match, 0, len(lexemes))
	for _, l := range lexemes {
		parts = append(parts, Match{Lexeme: l, Prefix: prefix})
	}
	return allMatch(parts)
}

// allMatch matches every one of parts, left out when zero.
func allMatch(parts []Match) Match {
	parts = slices.DeleteFunc(slices.Clone(parts), Match.IsZero)
	switch len(parts) {
	case 0:
		return Match{}
	case 1:
		return parts[0]
	default:
		return Match{All: parts}
	}
}

// or returns m matching alt too, unless alt is zero or m already has it.
func (m Match) or(alt Match) Match {
	if alt.IsZero() {
		return m
	}
	if m.IsZero() {
		return alt
	}
	alts := m.Any
	if len(alts) == 0 {
		alts = []Match{m}
	}
	key := alt.key()
	if slices.ContainsFunc(alts, func(a Match) bool { return a.key() == key }) {
		return m
	}
	return Match{Any: append(slices.Clone(alts), alt)}
}

// key writes m so that equal matches have equal keys.
func (m Match) key() string {
	var b strings.Builder
	m.write(&b)
	return b.String()
}

func (m Match) write(b *strings.Builder) {
	switch {
	case len(m.All) > 0 || len(m.Any) > 0:
		op, parts := "&", m.All
		if len(m.Any) > 0 {
			op, parts = "|", m.Any
		}
		b.WriteString("(" + op)
		for _, p := range parts {
			b.WriteByte(' ')
			p.write(b)
		}
		b.WriteByte(')')
	case m.Prefix:
		b.WriteString(m.Lexeme + ":*")
	default:
		b.WriteString(m.Lexeme)
	}
}
