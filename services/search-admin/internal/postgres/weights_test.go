package postgres_test

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// documentedWeights reads the README's table of schema versions: for each
// version, the weight of each field. A row may say "as vN" or "vN + ..."
// to start from an earlier row.
func documentedWeights(t *testing.T) map[string]map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]string{}
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, "| version | fields → weight |") {
			in = true
			continue
		}
		if !in || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "| v") {
			break
		}
		cells := strings.Split(line, "|")
		version, fields := strings.Fields(cells[1])[0], strings.TrimSpace(cells[2])
		weights := map[string]string{}
		if base, ok := strings.CutPrefix(fields, "as "); ok {
			maps.Copy(weights, out[base])
			fields = ""
		} else if base, rest, ok := strings.Cut(fields, " + "); ok {
			maps.Copy(weights, out[base])
			fields = rest
		}
		for item := range strings.SplitSeq(fields, ",") {
			if parts := strings.Fields(item); len(parts) == 2 {
				weights[parts[0]] = parts[1]
			}
		}
		out[version] = weights
	}
	if len(out) == 0 {
		t.Fatal("README.md has no table of schema versions")
	}
	return out
}

func TestTheDocumentedWeightsAreTheOnesApplied(t *testing.T) {
	t.Parallel()
	st, db := newStore(t)
	documented := documentedWeights(t)
	registry := catalog.DefaultRegistry()

	// One Servico whose every field holds a word of its own.
	marker := func(field string) string { return "marca" + strings.ReplaceAll(field, "_", "") }
	id, _ := uuid.NewV7()
	sv := &catalog.Servico{ID: id.String(), NomeServico: marker("nome_servico"), Resumo: marker("resumo"),
		TemaGeral: marker("tema_geral"), OrgaoGestor: []string{marker("orgao_gestor")},
		PublicoEspecifico: []string{marker("publico_especifico")}, DescricaoCompleta: marker("descricao_completa"),
		DocumentosNecessarios: []string{marker("documentos_necessarios")}, ResultadoSolicitacao: marker("resultado_solicitacao"),
		Autor: "tester", CreatedAt: time.Now().Unix(), LastUpdate: time.Now().Unix()}
	var docs []catalog.Document
	for _, v := range registry.Versions() {
		schema, _ := registry.Get(v)
		doc := schema.Document(sv)
		doc.Pending = true
		docs = append(docs, doc)
	}
	if err := st.Create(context.Background(), sv, fixedDocs(docs...)); err != nil {
		t.Fatal(err)
	}

	for _, v := range registry.Versions() {
		schema, _ := registry.Get(v)
		code := map[string]string{}
		for _, f := range schema.Fields {
			code[f.Name] = string(f.Weight)
		}
		if !maps.Equal(code, documented[v]) {
			t.Errorf("%s: README documents %v, the code defines %v", v, documented[v], code)
		}
		for field, weight := range documented[v] {
			var got []string
			err := db.Raw(`SELECT DISTINCT w::text FROM search_documents d, unnest(d.document) u, unnest(u.weights) w
WHERE d.servico_id = ? AND d.schema_version = ?
  AND u.lexeme = ANY (tsvector_to_array(to_tsvector('portuguese', search_unaccent(?))))`, sv.ID, v, marker(field)).Scan(&got).Error
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint([]string{weight}) {
				t.Errorf("%s: %s is stored with weights %v, README says %s", v, field, got, weight)
			}
		}
	}
}
