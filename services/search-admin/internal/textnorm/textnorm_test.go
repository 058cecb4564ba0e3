package textnorm

import (
	"slices"
	"testing"
)

func TestFold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"accents and cedillas are removed", "Certidão de Ação Açaí", "certidao de acao acai"},
		{"whitespace runs collapse to one space", "  IPTU \t\n 2025  ", "iptu 2025"},
		{"emoji pass through unchanged", "ônibus 🚌", "onibus 🚌"},
		{"empty text stays empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Fold(tt.in); got != tt.want {
				t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestWordsSplitsOnPunctuation(t *testing.T) {
	t.Parallel()
	got := Words("Emissão de 2ª via: IPTU/ITBI, já!")
	want := []string{"emissao", "de", "2a", "via", "iptu", "itbi", "ja"}
	if !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
}

func TestTokensKeepAccentsAndFoldToWords(t *testing.T) {
	t.Parallel()
	text := "Emissão de 2ª via: VACINAÇÕES/ITBI, ja\u0301! x\u0301y"
	got := Tokens(text)
	want := []string{"emissão", "de", "2ª", "via", "vacinações", "itbi", "já", "x\u0301y"}
	if !slices.Equal(got, want) {
		t.Fatalf("Tokens = %q, want %q", got, want)
	}
	folded := make([]string, len(got))
	for i, tok := range got {
		folded[i] = Fold(tok)
	}
	if words := Words(text); !slices.Equal(folded, words) {
		t.Errorf("folded tokens %q differ from Words %q", folded, words)
	}
}

// Invisible characters pasted inside a word leave one word: zero-width
// space, joiners, soft hyphen, direction marks, word joiner, BOM.
func TestInvisibleCharactersDoNotSplitWords(t *testing.T) {
	t.Parallel()
	text := "Sa\u200búde \u200dma\u00adtrí\u200ccula \u202eiptu\u202c \u2060vaci\ufeffna\u200f"
	want := []string{"saúde", "matrícula", "iptu", "vacina"}
	if got := Tokens(text); !slices.Equal(got, want) {
		t.Errorf("Tokens = %q, want %q", got, want)
	}
	if got, want := Words(text), []string{"saude", "matricula", "iptu", "vacina"}; !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
	if got := Visible("plain text: ação 🚌"); got != "plain text: ação 🚌" {
		t.Errorf("Visible changed visible text: %q", got)
	}
}
