package load

import (
	"fmt"
	"net/url"
	"strconv"
)

// phrases are the subjects of the generated rows, with the accents and
// words citizens search for.
var phrases = []string{
	"Segunda via do IPTU",
	"Matrícula na rede municipal de ensino",
	"Licença para obras e reformas",
	"Cartão de transporte do idoso",
	"Vacinação em postos de saúde",
	"Poda de árvores em via pública",
	"Alvará de funcionamento",
	"Coleta de entulho e bens inservíveis",
	"Emissão de nota fiscal de serviços",
	"Agendamento de atendimento na Clínica da Família",
}

// searchTerms are the queries of the search operation.
var searchTerms = []string{"iptu", "matricula escolar", "licença obras", "saúde vacina", "árvore poda", "alvará", "entulho", "nota fiscal"}

// Values of the enumerations of Emprego (API document table 2.1).
var (
	tiposContratacao = []string{"CLT", "ESTAGIO", "JOVEM_APRENDIZ", "MEI", "PJ"}
	jornadas         = []string{"INTEGRAL", "MEIO_PERIODO", "FLEXIVEL", "ESTAGIO", "HOME_OFFICE"}
	turnos           = []string{"MANHA", "TARDE", "NOITE", "INTEGRAL", "LIVRE"}
)

// pick returns the element of s that n selects.
func pick(s []string, n uint64) string { return s[n%uint64(len(s))] }

// servicoBody is a valid Servico (API document table 2.7), published every other time.
func servicoBody(_ *generator, name string, n uint64) map[string]any {
	subject := pick(phrases, n)
	return map[string]any{
		"nome_servico":       name,
		"orgao_gestor":       []string{"Secretaria Municipal de Fazenda"},
		"publico_especifico": []string{"Cidadão", "Empresa"},
		"resumo":             subject + ": solicitação pela internet ou nos postos de atendimento.",
		"tema_geral":         "Serviços ao cidadão",
		"descricao_completa": subject + ". Apresente os documentos necessários e acompanhe o pedido pelo protocolo.",
		"custo_servico":      "Gratuito",
		"tempo_atendimento":  "5 dias úteis",
		"canais_digitais":    []string{"https://servicos.municipal.example"},
		"status":             n % 2,
	}
}

// empregoBody is a valid open Emprego (API document table 2.1), referring to an
// Escolaridade of the run when there is one.
func empregoBody(g *generator, name string, n uint64) map[string]any {
	minimum := 1500 + int(n%20)*100
	body := map[string]any{
		"titulo":                  name,
		"descricao":               "Vaga para atuar em " + pick(phrases, n) + ".",
		"tipo_contratacao":        pick(tiposContratacao, n),
		"jornada_trabalho":        pick(jornadas, n/5),
		"turno":                   pick(turnos, n/25),
		"status":                  "ABERTO",
		"numero_vagas":            1 + n%5,
		"salario_min":             minimum,
		"salario_max":             minimum + 1000,
		"latitude":                -22.9 + float64(n%100)/1000,
		"longitude":               -43.2 - float64(n%100)/1000,
		"data_limite_candidatura": "2030-12-31",
	}
	if id, ok := g.pools[Escolaridade].random(g.rng); ok {
		if v, err := strconv.ParseInt(id, 10, 64); err == nil {
			body["escolaridade_id"] = v
		}
	}
	return body
}

// nameOnlyBody builds bodies of resources whose only member is their name.
func nameOnlyBody(field string) func(*generator, string, uint64) map[string]any {
	return func(_ *generator, name string, _ uint64) map[string]any {
		return map[string]any{field: name}
	}
}

// pageQuery pages through the first ten pages of a list.
func pageQuery(_ *generator, n uint64) string {
	return url.Values{"page": {strconv.FormatUint(1+n%10, 10)}, "per_page": {"20"}}.Encode()
}

// searchQuery cycles through the search terms and modes' default.
func searchQuery(_ *generator, n uint64) string {
	return url.Values{"q": {pick(searchTerms, n)}, "per_page": {"10"}}.Encode()
}

// Subjects of the names of the other resources.
var (
	cargos         = []string{"Pedreiro", "Auxiliar administrativo", "Cozinheiro", "Eletricista", "Atendente de saúde"}
	niveis         = []string{"Ensino fundamental", "Ensino médio", "Ensino técnico", "Ensino superior", "Pós-graduação"}
	nomesCategoria = []string{"Tecnologia", "Gastronomia", "Construção civil", "Idiomas", "Saúde e cuidado"}
)

// markedName is the name of the n-th row of the run: a subject of r and
// the marker, so that every name is unique and found by the marker.
func markedName(r *Resource, marker string, n uint64) string {
	return fmt.Sprintf("%s · %s-%d", pick(r.subjects, n), marker, n)
}
