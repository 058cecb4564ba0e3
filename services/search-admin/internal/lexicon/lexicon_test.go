package lexicon_test

import (
	"bytes"
	"compress/gzip"
	"slices"
	"testing"

	"github.com/municipal-apis/platform/services/search-admin/internal/lexicon"
)

func mustDefault(t *testing.T) *lexicon.Lexicon {
	t.Helper()
	lx, err := lexicon.Default()
	if err != nil {
		t.Fatal(err)
	}
	return lx
}

func TestTheEmbeddedLexiconKnowsPortugueseWords(t *testing.T) {
	t.Parallel()
	lx := mustDefault(t)
	if lx.Len() < 200000 {
		t.Errorf("the lexicon holds %d folded words, want the whole word list", lx.Len())
	}
	for _, w := range []string{"calcado", "calcada", "mato", "matricula", "certidoes", "vacinacao", "lixo", "buracos"} {
		if !lx.Known(w) {
			t.Errorf("%q is not known", w)
		}
	}
	for _, w := range []string{"matricola", "alvra", "licensa", "certdao", "", "iptu"} {
		if lx.Known(w) {
			t.Errorf("%q is known", w)
		}
	}
}

func TestSpellingsPutBackTheAccents(t *testing.T) {
	t.Parallel()
	lx := mustDefault(t)
	tests := []struct {
		folded string
		want   []string
	}{
		{"acao", []string{"ação"}},
		{"calcado", []string{"calcado", "calçado"}},
		{"mato", []string{"mato"}},
		{"xyzzy", nil},
	}
	for _, tt := range tests {
		if got := lx.Spellings(tt.folded); !slices.Equal(got, tt.want) {
			t.Errorf("Spellings(%q) = %q, want %q", tt.folded, got, tt.want)
		}
	}
	if !lx.IsWord("calçado") || lx.IsWord("calçadoo") || lx.IsWord("acao") {
		t.Error("IsWord does not tell spellings from folded forms")
	}
}

func TestNumbersGiveTheSingularAndThePlural(t *testing.T) {
	t.Parallel()
	lx := mustDefault(t)
	tests := []struct {
		folded string
		want   []string
	}{
		{"inscricoes", []string{"inscrição"}},
		{"inscricao", []string{"inscrições"}},
		{"animais", []string{"animal"}},
		{"imovel", []string{"imóveis"}},
		{"certidoes", []string{"certidão"}},
		{"arvores", []string{"árvore"}},
		{"mes", []string{"meses"}},
	}
	for _, tt := range tests {
		got := lx.Numbers(tt.folded)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Numbers(%q) = %q, want %q among them", tt.folded, got, w)
			}
		}
	}
}

func TestParseRefusesALexiconOutOfOrder(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte("casa\nacao ação\n"))
	_ = zw.Close()
	if _, err := lexicon.Parse(&buf); err == nil {
		t.Error("Parse accepted lines out of order")
	}
}
