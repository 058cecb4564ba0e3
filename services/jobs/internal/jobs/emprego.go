package jobs

import (
	"slices"
	"time"

	"github.com/municipal-apis/platform/pkg/problem"
)

// EmpregoFields are the writable members of a job posting (API document table 2.1).
// Optional members are pointers: absent or null is stored as NULL.
// Salaries are whole reais.
type EmpregoFields struct {
	Titulo                string          `json:"titulo"`
	Descricao             *string         `json:"descricao"`
	Beneficios            *string         `json:"beneficios"`
	PreRequisitos         *string         `json:"pre_requisitos"`
	ContatoDuvidas        *string         `json:"contato_duvidas"`
	NumeroVagas           *int32          `json:"numero_vagas"`
	SalarioMin            *int32          `json:"salario_min"`
	SalarioMax            *int32          `json:"salario_max"`
	Latitude              *float64        `json:"latitude"`
	Longitude             *float64        `json:"longitude"`
	DataInicioPrevista    *Timestamp      `json:"data_inicio_prevista"`
	DataLimiteCandidatura *Timestamp      `json:"data_limite_candidatura"`
	EmpresaID             *int64          `json:"empresa_id"`
	EscolaridadeID        *int64          `json:"escolaridade_id"`
	OrgaoID               *int64          `json:"orgao_id"`
	JornadaTrabalho       *Jornada        `json:"jornada_trabalho"`
	TipoContratacao       TipoContratacao `json:"tipo_contratacao"`
	Turno                 *Turno          `json:"turno"`
}

// Emprego is a job posting as stored, with its relations embedded when they
// are set (nested postings inside another resource omit them).
type Emprego struct {
	ID int64 `json:"id"`
	EmpregoFields
	Status       EmpregoStatus `json:"status"`
	CreatedAt    time.Time     `json:"created_at"`
	UpdatedAt    time.Time     `json:"updated_at"`
	Empresa      *Empresa      `json:"empresa,omitempty"`
	Escolaridade *Escolaridade `json:"escolaridade,omitempty"`
	Orgao        *Orgao        `json:"orgao,omitempty"`
}

// EmpregoInput is the body of a create or replace of a posting. Status is
// optional: a new posting starts as CRIADO unless it says ABERTO, and a
// replace without status keeps the current one.
type EmpregoInput struct {
	EmpregoFields
	Status *EmpregoStatus `json:"status"`
}

// EmpregoReadOnly are the response members a client may echo back; they are ignored.
var EmpregoReadOnly = []string{"id", "created_at", "updated_at", "empresa", "escolaridade", "orgao"}

// Validate records every violated rule of in.
func (in *EmpregoInput) Validate(v *problem.Violations) {
	f := &in.EmpregoFields
	requiredText(v, "titulo", &f.Titulo, MaxNameLength)
	optionalTexts(v, MaxTextLength, member{"descricao", f.Descricao}, member{"beneficios", f.Beneficios},
		member{"pre_requisitos", f.PreRequisitos}, member{"contato_duvidas", f.ContatoDuvidas})
	atLeast(v, "numero_vagas", f.NumeroVagas, 1)
	atLeast(v, "salario_min", f.SalarioMin, 0)
	atLeast(v, "salario_max", f.SalarioMax, 0)
	if f.SalarioMin != nil && f.SalarioMax != nil && !v.Has("salario_min") && !v.Has("salario_max") && *f.SalarioMin > *f.SalarioMax {
		v.Add("salario_min", CodeOrder, "must not exceed salario_max")
	}
	within(v, "latitude", f.Latitude, -90, 90)
	within(v, "longitude", f.Longitude, -180, 180)
	positiveID(v, "empresa_id", f.EmpresaID)
	positiveID(v, "escolaridade_id", f.EscolaridadeID)
	positiveID(v, "orgao_id", f.OrgaoID)
	oneOf(v, "jornada_trabalho", f.JornadaTrabalho, Jornadas)
	requiredOneOf(v, "tipo_contratacao", f.TipoContratacao, TiposContratacao)
	oneOf(v, "turno", f.Turno, Turnos)
	oneOf(v, "status", in.Status, EmpregoStatuses)
}

// ValidateNew is Validate for a posting about to be created: it also
// checks the initial status.
func (in *EmpregoInput) ValidateNew(v *problem.Violations) {
	in.Validate(v)
	if in.Status != nil && !v.Has("status") && !slices.Contains(initialStatuses, *in.Status) {
		v.Add("status", CodeInitial, "a new emprego starts as CRIADO or ABERTO")
	}
}

// InitialStatus is the status a new posting is stored with.
func (in *EmpregoInput) InitialStatus() EmpregoStatus {
	if in.Status == nil {
		return StatusCriado
	}
	return *in.Status
}

// EmpregoFilter selects postings in a list; nil members do not filter.
type EmpregoFilter struct {
	EmpresaID       *int64
	EscolaridadeID  *int64
	OrgaoID         *int64
	JornadaTrabalho *Jornada
	TipoContratacao *TipoContratacao
	Turno           *Turno
	Status          *EmpregoStatus
}

// Validate records the filter values that cannot match anything valid.
func (f *EmpregoFilter) Validate(v *problem.Violations) {
	oneOf(v, "jornada_trabalho", f.JornadaTrabalho, Jornadas)
	oneOf(v, "tipo_contratacao", f.TipoContratacao, TiposContratacao)
	oneOf(v, "turno", f.Turno, Turnos)
	oneOf(v, "status", f.Status, EmpregoStatuses)
}
