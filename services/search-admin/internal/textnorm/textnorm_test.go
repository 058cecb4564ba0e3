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
