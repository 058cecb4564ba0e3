package jobs

import (
	"slices"
	"strconv"
	"time"

	"github.com/municipal-apis/platform/pkg/problem"
)

// MaxCategorias bounds the categorias of one course.
const MaxCategorias = 100

// CursoFields are the writable members of a course (API document table 2.6). Optional
// members are pointers: absent or null is stored as NULL.
type CursoFields struct {
	Title                  string       `json:"title"`
	Description            *string      `json:"description"`
	Theme                  *string      `json:"theme"`
	Organization           *string      `json:"organization"`
	OrgaoID                *int64       `json:"orgao_id"`
	InstituicaoID          *int64       `json:"instituicao_id"`
	Facilitator            *string      `json:"facilitator"`
	Objectives             *string      `json:"objectives"`
	ExpectedResults        *string      `json:"expected_results"`
	Methodology            *string      `json:"methodology"`
	ProgramContent         *string      `json:"program_content"`
	TargetAudience         *string      `json:"target_audience"`
	PreRequisitos          *string      `json:"pre_requisitos"`
	MaterialUsed           *string      `json:"material_used"`
	ResourcesUsed          *string      `json:"resources_used"`
	TeachingMaterial       *string      `json:"teaching_material"`
	Workload               *string      `json:"workload"`
	CargaHoraria           *int32       `json:"carga_horaria"`
	NumeroVagas            *int32       `json:"numero_vagas"`
	LocalRealizacao        *string      `json:"local_realizacao"`
	ContatoDuvidas         *string      `json:"contato_duvidas"`
	LinkInscricao          *string      `json:"link_inscricao"`
	CoverImage             *string      `json:"cover_image"`
	InstitutionalLogo      *string      `json:"institutional_logo"`
	HasCertificate         *bool        `json:"has_certificate"`
	CertificacaoOferecida  *bool        `json:"certificacao_oferecida"`
	IsExternalPartner      *bool        `json:"is_external_partner"`
	ExternalPartnerName    *string      `json:"external_partner_name"`
	ExternalPartnerContact *string      `json:"external_partner_contact"`
	ExternalPartnerURL     *string      `json:"external_partner_url"`
	ExternalPartnerLogoURL *string      `json:"external_partner_logo_url"`
	DataInicio             *Timestamp   `json:"data_inicio"`
	DataTermino            *Timestamp   `json:"data_termino"`
	DataLimiteInscricoes   *Timestamp   `json:"data_limite_inscricoes"`
	EnrollmentStartDate    *Timestamp   `json:"enrollment_start_date"`
	EnrollmentEndDate      *Timestamp   `json:"enrollment_end_date"`
	FormatoAula            *FormatoAula `json:"formato_aula"`
	Modalidade             Modalidade   `json:"modalidade"`
	Status                 *CursoStatus `json:"status"`
	Turno                  *Turno       `json:"turno"`
}

// Curso is a course as stored. Categorias is embedded in course responses
// and omitted when the course is nested inside another resource.
type Curso struct {
	ID int64 `json:"id"`
	CursoFields
	CreatedAt  time.Time   `json:"created_at"`
	UpdatedAt  time.Time   `json:"updated_at"`
	Categorias []Categoria `json:"categorias,omitzero"`
}

// CursoInput is the body of a create or replace of a course; CategoriaIDs
// replaces the set of categorias the course belongs to.
type CursoInput struct {
	CursoFields
	CategoriaIDs []int64 `json:"categoria_ids"`
}

// CursoReadOnly are the response members a client may echo back; they are ignored.
var CursoReadOnly = []string{"id", "created_at", "updated_at", "categorias"}

// Validate records every violated rule of in and drops repeated categoria ids.
func (in *CursoInput) Validate(v *problem.Violations) {
	f := &in.CursoFields
	requiredText(v, "title", &f.Title, MaxNameLength)
	optionalTexts(v, MaxTextLength,
		member{"description", f.Description}, member{"theme", f.Theme}, member{"organization", f.Organization},
		member{"facilitator", f.Facilitator}, member{"objectives", f.Objectives}, member{"expected_results", f.ExpectedResults},
		member{"methodology", f.Methodology}, member{"program_content", f.ProgramContent}, member{"target_audience", f.TargetAudience},
		member{"pre_requisitos", f.PreRequisitos}, member{"material_used", f.MaterialUsed}, member{"resources_used", f.ResourcesUsed},
		member{"teaching_material", f.TeachingMaterial}, member{"workload", f.Workload}, member{"local_realizacao", f.LocalRealizacao},
		member{"contato_duvidas", f.ContatoDuvidas}, member{"external_partner_name", f.ExternalPartnerName},
		member{"external_partner_contact", f.ExternalPartnerContact})
	for _, m := range []member{{"link_inscricao", f.LinkInscricao}, {"cover_image", f.CoverImage}, {"institutional_logo", f.InstitutionalLogo},
		{"external_partner_url", f.ExternalPartnerURL}, {"external_partner_logo_url", f.ExternalPartnerLogoURL}} {
		optionalURL(v, m.field, m.value)
	}
	positiveID(v, "orgao_id", f.OrgaoID)
	positiveID(v, "instituicao_id", f.InstituicaoID)
	atLeast(v, "carga_horaria", f.CargaHoraria, 0)
	atLeast(v, "numero_vagas", f.NumeroVagas, 1)
	notBefore(v, "data_termino", f.DataTermino, "data_inicio", f.DataInicio)
	notBefore(v, "enrollment_end_date", f.EnrollmentEndDate, "enrollment_start_date", f.EnrollmentStartDate)
	oneOf(v, "formato_aula", f.FormatoAula, FormatosAula)
	requiredOneOf(v, "modalidade", f.Modalidade, Modalidades)
	oneOf(v, "status", f.Status, CursoStatuses)
	oneOf(v, "turno", f.Turno, Turnos)
	in.validateCategorias(v)
}

func (in *CursoInput) validateCategorias(v *problem.Violations) {
	if v.Has("categoria_ids") {
		return
	}
	for i, id := range in.CategoriaIDs {
		positiveID(v, "categoria_ids["+strconv.Itoa(i)+"]", &id)
	}
	// Repeated ids count once: the limit is on distinct categorias.
	slices.Sort(in.CategoriaIDs)
	in.CategoriaIDs = slices.Compact(in.CategoriaIDs)
	if len(in.CategoriaIDs) > MaxCategorias && !v.Has("categoria_ids") {
		v.Addf("categoria_ids", CodeMaxLength, "must hold at most %d distinct identifiers", MaxCategorias)
	}
}

// CursoFilter selects courses in a list; nil members do not filter.
type CursoFilter struct {
	OrgaoID       *int64
	InstituicaoID *int64
	CategoriaID   *int64
	FormatoAula   *FormatoAula
	Modalidade    *Modalidade
	Status        *CursoStatus
	Turno         *Turno
}

// Validate records the filter values that cannot match anything valid.
func (f *CursoFilter) Validate(v *problem.Violations) {
	oneOf(v, "formato_aula", f.FormatoAula, FormatosAula)
	oneOf(v, "modalidade", f.Modalidade, Modalidades)
	oneOf(v, "status", f.Status, CursoStatuses)
	oneOf(v, "turno", f.Turno, Turnos)
}
