package catalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/municipal-apis/platform/services/search-admin/internal/textnorm"
)

// Weight is a PostgreSQL tsvector weight: A ranks highest, D lowest.
type Weight string

// The four tsvector weights, in rank order.
const (
	WeightA Weight = "A"
	WeightB Weight = "B"
	WeightC Weight = "C"
	WeightD Weight = "D"
)

// weights lists the tsvector weights in the order of Document.Weighted.
var weights = []Weight{WeightA, WeightB, WeightC, WeightD}

// SchemaField is one Servico member that feeds a schema's search document.
type SchemaField struct {
	Name   string `json:"name"`
	Weight Weight `json:"weight"`
}

// Schema is one search-schema version: which members build search_content
// and the tsvector, with which weight, how the text is normalized, and the
// dimension of the embedding.
type Schema struct {
	Version     string
	Description string
	Fields      []SchemaField
	// Fold lowercases and strips accents from search_content (the tsvector
	// is accent-insensitive in every version).
	Fold bool
	// StemAccents builds the tsvector by stemming the words as written and
	// folding the stems; otherwise the words are folded and then stemmed.
	StemAccents bool
	Dimensions  int
}

// Document is the search document of one Servico in one schema version.
type Document struct {
	SchemaVersion string
	Content       string
	// Weighted holds the text of each tsvector weight, A to D, at most
	// MaxWeightedBytes of each.
	Weighted [4]string
	// StemAccents is the schema's: the tsvector also holds the folded
	// stems of Weighted as written.
	StemAccents bool
	Embedding   []float32
	Model       string
	Pending     bool
	LastError   string
}

// fieldValues reads the text of each member a schema may index.
var fieldValues = map[string]func(*Servico) []string{
	"nome_servico":           func(s *Servico) []string { return []string{s.NomeServico} },
	"resumo":                 func(s *Servico) []string { return []string{s.Resumo} },
	"tema_geral":             func(s *Servico) []string { return []string{s.TemaGeral} },
	"orgao_gestor":           func(s *Servico) []string { return s.OrgaoGestor },
	"publico_especifico":     func(s *Servico) []string { return s.PublicoEspecifico },
	"descricao_completa":     func(s *Servico) []string { return []string{s.DescricaoCompleta} },
	"documentos_necessarios": func(s *Servico) []string { return s.DocumentosNecessarios },
	"resultado_solicitacao":  func(s *Servico) []string { return []string{s.ResultadoSolicitacao} },
}

// Document builds the search document of s: search_content joins the text of
// every field on its own line, and Weighted groups it by tsvector weight.
func (sc Schema) Document(s *Servico) Document {
	doc := Document{SchemaVersion: sc.Version, StemAccents: sc.StemAccents}
	var lines []string
	for _, f := range sc.Fields {
		for _, text := range fieldValues[f.Name](s) {
			text = strings.Join(strings.Fields(textnorm.Visible(text)), " ")
			if text == "" {
				continue
			}
			weighted := text
			if sc.Fold {
				text = textnorm.Fold(text)
			}
			if !sc.StemAccents {
				weighted = text
			}
			lines = append(lines, text)
			i := slices.Index(weights, f.Weight)
			doc.Weighted[i] = strings.TrimSpace(doc.Weighted[i] + "\n" + weighted)
		}
	}
	for i, text := range doc.Weighted {
		doc.Weighted[i] = cutWords(text, MaxWeightedBytes)
	}
	doc.Content = strings.Join(lines, "\n")
	return doc
}

// MaxWeightedBytes bounds the text of one tsvector weight. Postgres refuses
// a tsvector over 1 MB, and a text of short distinct words makes a tsvector
// about two and a half times its size, twice that with StemAccents; four
// weights of 32 KiB stay below. Text past it is kept in search_content and
// the embedding, but keyword search does not find it.
const MaxWeightedBytes = 32 << 10

// cutWords cuts s to at most n bytes, at the last white space before the
// limit (or the last whole character when there is none).
func cutWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexAny(s[:cut], " \n"); i > 0 {
		cut = i
	}
	return s[:cut]
}

// Registry holds the search-schema versions defined in code, in numeric order.
type Registry struct {
	schemas []Schema
}

// NewRegistry checks schemas (versions named v<N>, unique, positive
// dimension, known fields and weights) and orders them numerically.
func NewRegistry(schemas ...Schema) (*Registry, error) {
	seen := map[int]bool{}
	for _, sc := range schemas {
		n, err := versionNumber(sc.Version)
		if err != nil {
			return nil, err
		}
		if seen[n] {
			return nil, fmt.Errorf("schema %s is defined twice", sc.Version)
		}
		seen[n] = true
		if sc.Dimensions <= 0 || len(sc.Fields) == 0 {
			return nil, fmt.Errorf("schema %s needs fields and a positive dimension", sc.Version)
		}
		for _, f := range sc.Fields {
			if fieldValues[f.Name] == nil || !slices.Contains(weights, f.Weight) {
				return nil, fmt.Errorf("schema %s: field %q with weight %q is not indexable", sc.Version, f.Name, f.Weight)
			}
		}
	}
	sorted := slices.Clone(schemas)
	slices.SortFunc(sorted, func(a, b Schema) int {
		x, _ := versionNumber(a.Version)
		y, _ := versionNumber(b.Version)
		return x - y
	})
	return &Registry{schemas: sorted}, nil
}

// versionNumber parses "v12" as 12.
func versionNumber(version string) (int, error) {
	digits, ok := strings.CutPrefix(version, "v")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n <= 0 || strconv.Itoa(n) != digits {
		return 0, fmt.Errorf("schema version %q must be v followed by a positive number", version)
	}
	return n, nil
}

// Get returns the schema of version.
func (r *Registry) Get(version string) (Schema, bool) {
	for _, sc := range r.schemas {
		if sc.Version == version {
			return sc, true
		}
	}
	return Schema{}, false
}

// Lookup is Get for a version that must be defined: the version a store
// names as current, or the one a document was built in. Its absence is an
// error, which names the version.
func (r *Registry) Lookup(version string) (Schema, error) {
	sc, ok := r.Get(version)
	if !ok {
		return Schema{}, fmt.Errorf("search schema %q is not defined in this build", version)
	}
	return sc, nil
}

// All returns every schema in numeric version order.
func (r *Registry) All() []Schema { return slices.Clone(r.schemas) }

// Versions returns every version name in numeric order.
func (r *Registry) Versions() []string {
	out := make([]string, len(r.schemas))
	for i, sc := range r.schemas {
		out[i] = sc.Version
	}
	return out
}
