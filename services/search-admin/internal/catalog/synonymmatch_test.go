package catalog

import (
	"slices"
	"strings"
	"testing"
)

// word is a query word whose only lexeme and form is text.
func word(text string) queryWord {
	return queryWord{text: text, typed: text, match: Match{Lexeme: text}, forms: []string{text}}
}

// rulesOf compiles rules whose terms are space-separated words.
func rulesOf(rules ...Synonym) *synonymRules {
	out := &synonymRules{byFirst: map[string][]termRef{}}
	for ri, r := range rules {
		cr := compiledRule{id: r.ID, oneWay: r.Root != ""}
		for ti, t := range r.terms() {
			ct := compiledTerm{text: t}
			for _, w := range strings.Fields(t) {
				ct.words = append(ct.words, word(w))
			}
			cr.terms = append(cr.terms, ct)
			if !cr.oneWay || ti == 0 {
				out.byFirst[ct.words[0].text] = append(out.byFirst[ct.words[0].text], termRef{ri, ti})
			}
		}
		out.rules = append(out.rules, cr)
	}
	return out
}

func TestSynonymExpansion(t *testing.T) {
	t.Parallel()
	rules := rulesOf(
		Synonym{ID: "lixo", Synonyms: []string{"lixo", "residuo"}},
		Synonym{ID: "coleta", Synonyms: []string{"coleta lixo", "recolhimento"}},
		Synonym{ID: "poste", Root: "poste", Synonyms: []string{"iluminacao publica"}},
		Synonym{ID: "lixo2", Root: "lixo", Synonyms: []string{"detrito"}},
	)
	tests := []struct {
		name  string
		query string
		terms []string
		fired []string
	}{
		{"no rule leaves one term per word", "taxa anual", []string{"taxa", "anual"}, nil},
		{"every rule matching a word adds its terms", "lixo", []string{"(| lixo residuo detrito)"}, []string{"lixo", "lixo2"}},
		{"the longest span wins over a shorter one inside it", "coleta lixo hoje", []string{"(| (& coleta lixo) recolhimento)", "hoje"}, []string{"coleta"}},
		{"a one-way rule fires from its root", "poste", []string{"(| poste (& iluminacao publica))"}, []string{"poste"}},
		{"a one-way rule never fires from a synonym", "iluminacao publica", []string{"iluminacao", "publica"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var words []queryWord
			for _, w := range strings.Fields(tt.query) {
				words = append(words, word(w))
			}
			terms, fired := rules.expand(words)
			var got, ids []string
			for _, m := range terms {
				got = append(got, m.key())
			}
			for _, f := range fired {
				ids = append(ids, f.ID)
			}
			if !slices.Equal(got, tt.terms) || !slices.Equal(ids, tt.fired) {
				t.Errorf("terms %q, fired %q; want %q, %q", got, ids, tt.terms, tt.fired)
			}
		})
	}
}
