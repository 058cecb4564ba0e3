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

// DefaultRegistry returns the registry of every schema version of the service.
func DefaultRegistry() *Registry {
	r, err := NewRegistry(SchemaV1, SchemaV2)
	if err != nil {
		panic("catalog: the built-in schemas are invalid: " + err.Error())
	}
	return r
}
