package catalog

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRegistryOrdersVersionsNumerically(t *testing.T) {
	t.Parallel()
	mk := func(v string) Schema {
		return Schema{Version: v, Fields: []SchemaField{{Name: "nome_servico", Weight: WeightA}}, Dimensions: 8}
	}
	r, err := NewRegistry(mk("v10"), mk("v9"), mk("v1"), mk("v2"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Versions(), []string{"v1", "v2", "v9", "v10"}; !slices.Equal(got, want) {
		t.Errorf("Versions = %q, want %q", got, want)
	}
}

func TestRegistryRefusesBrokenSchemas(t *testing.T) {
	t.Parallel()
	field := []SchemaField{{Name: "nome_servico", Weight: WeightA}}
	tests := []struct {
		name    string
		schemas []Schema
	}{
		{"a version without the v prefix", []Schema{{Version: "2", Fields: field, Dimensions: 8}}},
		{"a version with a leading zero", []Schema{{Version: "v02", Fields: field, Dimensions: 8}}},
		{"a version defined twice", []Schema{{Version: "v1", Fields: field, Dimensions: 8}, {Version: "v1", Fields: field, Dimensions: 8}}},
		{"a zero dimension", []Schema{{Version: "v1", Fields: field}}},
		{"a field that cannot be indexed", []Schema{{Version: "v1", Fields: []SchemaField{{Name: "autor", Weight: WeightA}}, Dimensions: 8}}},
		{"an unknown weight", []Schema{{Version: "v1", Fields: []SchemaField{{Name: "resumo", Weight: "E"}}, Dimensions: 8}}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			t.Parallel()
			if _, err := NewRegistry(tt.schemas...); err == nil {
				t.Error("NewRegistry accepted it")
			}
		})
	}
}

func TestSchemaVersionsBuildDifferentDocuments(t *testing.T) {
	t.Parallel()
	sv := &Servico{NomeServico: "Certidão  Negativa", Resumo: "Emita a certidão.", TemaGeral: "Tributos",
		OrgaoGestor: []string{"SMF"}, PublicoEspecifico: []string{"Cidadãos"}, DescricaoCompleta: "Documento oficial."}
	v1, v2 := SchemaV1.Document(sv), SchemaV2.Document(sv)
	if v1.Content != "Certidão Negativa\nEmita a certidão.\nTributos" {
		t.Errorf("v1 content = %q", v1.Content)
	}
	if v2.Content != "certidao negativa\nemita a certidao.\ntributos\nsmf\ncidadaos\ndocumento oficial." {
		t.Errorf("v2 content = %q", v2.Content)
	}
	if v2.Weighted[0] != "certidao negativa" || !strings.Contains(v2.Weighted[1], "tributos") || v2.Weighted[3] != "documento oficial." {
		t.Errorf("v2 weights = %q", v2.Weighted)
	}
	if SchemaV1.Dimensions == SchemaV2.Dimensions {
		t.Error("v1 and v2 use the same embedding dimension")
	}
	v3 := SchemaV3.Document(sv)
	if v3.Content != v2.Content || v3.Weighted[0] != "Certidão Negativa" || !v3.StemAccents || v2.StemAccents {
		t.Errorf("v3 document = %+v: want v2's folded content and the weighted text as written", v3)
	}
	if got := DefaultRegistry().Versions(); !slices.Equal(got, []string{"v1", "v2", "v3"}) {
		t.Errorf("default versions = %q", got)
	}
}

func TestBackoffDoublesUpToTheCap(t *testing.T) {
	t.Parallel()
	r := &Reembedder{cfg: ReembedConfig{BackoffBase: time.Second, BackoffMax: 10 * time.Second}}
	tests := []struct {
		attempt int
		want    time.Duration
	}{{1, time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second}, {4, 8 * time.Second}, {5, 10 * time.Second}, {60, 10 * time.Second}}
	for _, tt := range tests {
		got := r.backoff(tt.attempt)
		if got > tt.want || got < tt.want*8/10 {
			t.Errorf("backoff(%d) = %v, want within 20%% below %v", tt.attempt, got, tt.want)
		}
	}
}
