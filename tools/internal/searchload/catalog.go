// Package searchload measures public search under concurrency through the
// gateway: a catalog of published Servicos is seeded into a stack's
// search-admin database and indexed by a real re-index, then a fixed number
// of clients send searches back to back, each mode in turn, and the
// throughput, latency percentiles and failures are reported.
package searchload

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// The catalogs.
const (
	// Realistic is the 70 services of the labeled relevance set, each
	// repeated with a unit number, searched with the labeled queries: what
	// search-admin's BenchmarkSearch measures serially.
	Realistic = "realistic"
	// Stress is services written from a vocabulary so small that every
	// common query word matches most of the catalog, as common words do in
	// a large real one, searched with short common-word queries.
	Stress = "stress"
)

// Catalogs lists the catalogs in the order they are measured.
var Catalogs = []string{Realistic, Stress}

// Servico is the part of a Servico the seed writes.
type Servico struct {
	Nome       string   `json:"nome_servico"`
	Resumo     string   `json:"resumo"`
	Tema       string   `json:"tema_geral"`
	Orgaos     []string `json:"orgao_gestor"`
	Publico    []string `json:"publico_especifico"`
	Descricao  string   `json:"descricao_completa"`
	Documentos []string `json:"documentos_necessarios"`
}

// Catalog is what one measurement seeds and asks.
type Catalog struct {
	Name     string
	Servicos []Servico
	Queries  []string
}

// relevanceDir is the labeled relevance set, from the repository root.
var relevanceDir = filepath.Join("services", "search-admin", "testdata", "relevance")

// Build returns the catalog called name with n Servicos; root is the
// repository root (the realistic catalog reads the relevance set there).
func Build(name, root string, n int) (Catalog, error) {
	switch name {
	case Realistic:
		return realistic(root, n)
	case Stress:
		return stress(n), nil
	}
	return Catalog{}, fmt.Errorf("no catalog %q (want %s)", name, strings.Join(Catalogs, " or "))
}

// realistic cycles through the relevance services with a unit number, as
// BenchmarkSearch seeds them, and asks the labeled queries.
func realistic(root string, n int) (Catalog, error) {
	var base []Servico
	if err := readJSON(filepath.Join(root, relevanceDir, "servicos.json"), &base); err != nil {
		return Catalog{}, err
	}
	var queries []struct {
		Q string `json:"q"`
	}
	if err := readJSON(filepath.Join(root, relevanceDir, "queries.json"), &queries); err != nil {
		return Catalog{}, err
	}
	if len(base) == 0 || len(queries) == 0 {
		return Catalog{}, fmt.Errorf("the relevance set in %s is empty", relevanceDir)
	}
	c := Catalog{Name: Realistic, Servicos: make([]Servico, n)}
	for i := range n {
		s := base[(i+1)%len(base)]
		s.Nome = fmt.Sprintf("%s - unidade %d", s.Nome, i+1)
		c.Servicos[i] = s
	}
	for _, q := range queries {
		c.Queries = append(c.Queries, q.Q)
	}
	return c, nil
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s (run from the repository root): %w", path, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

// vocabulary is the stress catalog's whole vocabulary, most common first:
// words drawn by a Zipf law over it, so the first dozen appear in nearly
// every Servico.
var vocabulary = strings.Fields(`
serviço municipal pedido cidadão atendimento solicitação documento cadastro
prefeitura certidão taxa licença pública online consulta registro
emissão renovação protocolo secretaria programa inscrição pagamento
imposto saúde escola transporte obra limpeza iluminação rua bairro
habitação social cultura esporte meio ambiente animal árvore poda coleta
entulho alvará vistoria fiscalização multa recurso parcelamento dívida
segunda via boleto comprovante endereço agendamento unidade família
criança idoso estudante trabalhador empresa comércio evento feira`)

// VocabularySize is the number of words the stress catalog is written with.
func VocabularySize() int { return len(vocabulary) }

// stressTemas and stressOrgaos give the filters a few values.
var (
	stressTemas  = []string{"Tributos", "Saúde", "Educação", "Urbanismo", "Meio ambiente", "Assistência social", "Transporte", "Cultura"}
	stressOrgaos = []string{"Secretaria de Fazenda", "Secretaria de Saúde", "Secretaria de Educação", "Secretaria de Obras", "Secretaria de Governo"}
)

// stressSeed fixes the stress catalog, so every run measures the same one.
const stressSeed = 20

// stress writes n Servicos from the vocabulary, their words drawn by a Zipf
// law, and 48 queries of one to three of the 16 commonest words.
func stress(n int) Catalog {
	r := rand.New(rand.NewPCG(stressSeed, stressSeed))
	z := newZipf(r, len(vocabulary), 1.1)
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocabulary[z.next()]
		}
		return strings.Join(w, " ")
	}
	c := Catalog{Name: Stress, Servicos: make([]Servico, n)}
	for i := range n {
		c.Servicos[i] = Servico{
			Nome:       fmt.Sprintf("%s %d", words(3+r.IntN(4)), i+1),
			Resumo:     words(15 + r.IntN(15)),
			Tema:       stressTemas[r.IntN(len(stressTemas))],
			Orgaos:     []string{stressOrgaos[r.IntN(len(stressOrgaos))]},
			Publico:    []string{"Cidadão"},
			Descricao:  words(40 + r.IntN(40)),
			Documentos: []string{words(2), words(3)},
		}
	}
	for len(c.Queries) < 48 {
		k := 1 + len(c.Queries)%3
		q := make([]string, k)
		for i := range q {
			q[i] = vocabulary[r.IntN(16)]
		}
		c.Queries = append(c.Queries, strings.Join(q, " "))
	}
	return c
}

// zipf draws ranks 0..n-1 with probability proportional to 1/(rank+1)^s.
type zipf struct {
	r   *rand.Rand
	cdf []float64
}

func newZipf(r *rand.Rand, n int, s float64) *zipf {
	z := &zipf{r: r, cdf: make([]float64, n)}
	sum := 0.0
	for i := range n {
		sum += 1 / math.Pow(float64(i+1), s)
		z.cdf[i] = sum
	}
	for i := range z.cdf {
		z.cdf[i] /= sum
	}
	return z
}

func (z *zipf) next() int {
	u := z.r.Float64()
	lo, hi := 0, len(z.cdf)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if z.cdf[mid] < u {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
