package catalog

// SchemaV1 indexes only the headline members, as typed, with small vectors.
var SchemaV1 = Schema{
	Version:     "v1",
	Description: "Headline members only (nome_servico, resumo, tema_geral), text as typed, 256-dimension embeddings.",
	Fields: []SchemaField{
		{Name: "nome_servico", Weight: WeightA},
		{Name: "resumo", Weight: WeightB},
		{Name: "tema_geral", Weight: WeightC},
	},
	Dimensions: 256,
}

// SchemaV2 adds the full description, managing bodies, audiences, required
// documents and outcome, folds search_content to lowercase without accents,
// and uses larger vectors.
var SchemaV2 = Schema{
	Version:     "v2",
	Description: "Adds descricao_completa, orgao_gestor, publico_especifico, documentos_necessarios and resultado_solicitacao; search_content lowercased without accents; 384-dimension embeddings.",
	Fields: []SchemaField{
		{Name: "nome_servico", Weight: WeightA},
		{Name: "resumo", Weight: WeightB},
		{Name: "tema_geral", Weight: WeightB},
		{Name: "orgao_gestor", Weight: WeightC},
		{Name: "publico_especifico", Weight: WeightC},
		{Name: "descricao_completa", Weight: WeightD},
		{Name: "documentos_necessarios", Weight: WeightD},
		{Name: "resultado_solicitacao", Weight: WeightD},
	},
	Fold:       true,
	Dimensions: 384,
}

// SchemaV3 indexes what v2 does and stems the words as written before
// folding them, besides folding and then stemming, so that every inflection
// of an accented word meets its stem ("vacinação", "vacinações" and
// "vacina" share "vacin").
var SchemaV3 = Schema{
	Version:     "v3",
	Description: "The fields, weights, folded search_content and 384-dimension embeddings of v2; the tsvector also holds the stems of the accented words, folded after stemming, so singular and plural of accented words meet.",
	Fields:      SchemaV2.Fields,
	Fold:        true,
	StemAccents: true,
	Dimensions:  384,
}

// DefaultRegistry returns the registry of every schema version of the service.
func DefaultRegistry() *Registry {
	r, err := NewRegistry(SchemaV1, SchemaV2, SchemaV3)
	if err != nil {
		panic("catalog: the built-in schemas are invalid: " + err.Error())
	}
	return r
}
