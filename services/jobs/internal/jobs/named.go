package jobs

import (
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Empresa is a company (API document table 2.2). Empregos, its first
// MaxEmbedded postings, and EmpregosTotal, how many there are, are set in
// single-resource responses and omitted in lists and nested objects; the
// same holds for the reverse arrays of Escolaridade, Orgao and Categoria.
type Empresa struct {
	ID            int64     `json:"id"`
	Nome          string    `json:"nome"`
	Empregos      []Emprego `json:"empregos,omitzero"`
	EmpregosTotal *int64    `json:"empregos_total,omitempty"`
}

// Escolaridade is an education level (API document table 2.3); Nivel is unique, ignoring
// case, in its UniqueName form.
type Escolaridade struct {
	ID            int64     `json:"id"`
	Nivel         string    `json:"nivel"`
	Empregos      []Emprego `json:"empregos,omitzero"`
	EmpregosTotal *int64    `json:"empregos_total,omitempty"`
}

// Orgao is a public body (API document table 2.4).
type Orgao struct {
	ID            int64     `json:"id"`
	Nome          string    `json:"nome"`
	Cursos        []Curso   `json:"cursos,omitzero"`
	CursosTotal   *int64    `json:"cursos_total,omitempty"`
	Empregos      []Emprego `json:"empregos,omitzero"`
	EmpregosTotal *int64    `json:"empregos_total,omitempty"`
}

// Categoria is a course category (API document table 2.5); Nome is unique, ignoring case,
// in its UniqueName form.
type Categoria struct {
	ID          int64   `json:"id"`
	Nome        string  `json:"nome"`
	Cursos      []Curso `json:"cursos,omitzero"`
	CursosTotal *int64  `json:"cursos_total,omitempty"`
}

// NomeInput is the body of a create or replace of an Empresa, Orgao or Categoria.
type NomeInput struct {
	Nome string `json:"nome"`
}

// Name returns the nome member.
func (in *NomeInput) Name() string { return in.Nome }

// Validate records every violated rule of in; nome is trimmed.
func (in *NomeInput) Validate(v *problem.Violations) {
	requiredText(v, "nome", &in.Nome, MaxNameLength)
}

// EscolaridadeInput is the body of a create or replace of an Escolaridade.
type EscolaridadeInput struct {
	Nivel string `json:"nivel"`
}

// Name returns the nivel member.
func (in *EscolaridadeInput) Name() string { return in.Nivel }

// Validate records every violated rule of in; nivel is unique, so it is
// put in its UniqueName form first.
func (in *EscolaridadeInput) Validate(v *problem.Violations) {
	in.Nivel = UniqueName(in.Nivel)
	requiredText(v, "nivel", &in.Nivel, MaxNameLength)
}

// NameFilter selects rows whose name equals Name, ignoring case; nil selects all.
type NameFilter struct {
	Name *string
}

// zeroWidth are the invisible characters a unique name drops: zero width
// space, non-joiner and joiner, word joiner and zero width no-break space
// (the byte order mark). The migration that normalizes stored names
// (migrations/00002_unique_names.sql) removes the same set.
var zeroWidth = strings.NewReplacer("\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "")

// UniqueName is the form a name that must be unique is compared and stored
// in: zero-width characters removed, Unicode NFC (so "Me\u0301dio" and
// "Médio" are one name), surrounding white space trimmed.
func UniqueName(s string) string {
	return strings.TrimSpace(norm.NFC.String(zeroWidth.Replace(s)))
}

// ValidateUnique is Validate for a name that must be unique (a Categoria's):
// nome is put in its UniqueName form first.
func (in *NomeInput) ValidateUnique(v *problem.Violations) {
	in.Nome = UniqueName(in.Nome)
	in.Validate(v)
}
