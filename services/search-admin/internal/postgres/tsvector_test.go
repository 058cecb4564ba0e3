package postgres

import (
	"slices"
	"testing"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

func TestParseTSVectorReadsPostgresOutput(t *testing.T) {
	t.Parallel()
	// SELECT to_tsvector('simple', 'x') || setweight(to_tsvector('simple', 'oi tudo bem oi'), 'A')
	//     || E'''it''''s'':3 ''back\\\\slash'' plain'::tsvector
	got, err := parseTSVector(`'back\\slash' 'bem':4A 'it''s':8 'oi':2A,5A 'plain' 'tudo':3A 'x':1,16383C`)
	if err != nil {
		t.Fatal(err)
	}
	const a, c = 3 << 14, 1 << 14
	want := []catalog.DocLexeme{
		{Lexeme: `back\slash`, Weight: 'D'},
		{Lexeme: "bem", Weight: 'A', Positions: []uint16{4 | a}},
		{Lexeme: "it's", Weight: 'D', Positions: []uint16{8}},
		{Lexeme: "oi", Weight: 'A', Positions: []uint16{2 | a, 5 | a}},
		{Lexeme: "plain", Weight: 'D'},
		{Lexeme: "tudo", Weight: 'A', Positions: []uint16{3 | a}},
		{Lexeme: "x", Weight: 'C', Positions: []uint16{1, 16383 | c}},
	}
	if !slices.EqualFunc(got, want, func(x, y catalog.DocLexeme) bool {
		return x.Lexeme == y.Lexeme && x.Weight == y.Weight && slices.Equal(x.Positions, y.Positions)
	}) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{`oi`, `'oi`, `'oi':x`, `'oi':16384`} {
		if _, err := parseTSVector(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
