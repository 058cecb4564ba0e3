package client

import "time"

// Emprego is a job posting (API document table 2.1). Optional members are pointers or
// omitted when empty; nested relation objects are read-only.
type Emprego struct {
	ID                    int64         `json:"id,omitempty"`
	Titulo                string        `json:"titulo"`
	Descricao             *string       `json:"descricao,omitempty"`
	Beneficios            *string       `json:"beneficios,omitempty"`
	PreRequisitos         *string       `json:"pre_requisitos,omitempty"`
	ContatoDuvidas        *string       `json:"contato_duvidas,omitempty"`
	NumeroVagas           *int          `json:"numero_vagas,omitempty"`
	SalarioMin            *int          `json:"salario_min,omitempty"`
	SalarioMax            *int          `json:"salario_max,omitempty"`
	Latitude              *float64      `json:"latitude,omitempty"`
	Longitude             *float64      `json:"longitude,omitempty"`
	DataInicioPrevista    *time.Time    `json:"data_inicio_prevista,omitempty"`
	DataLimiteCandidatura *time.Time    `json:"data_limite_candidatura,omitempty"`
	EmpresaID             *int64        `json:"empresa_id,omitempty"`
	Empresa               *Empresa      `json:"empresa,omitempty"`
	EscolaridadeID        *int64        `json:"escolaridade_id,omitempty"`
	Escolaridade          *Escolaridade `json:"escolaridade,omitempty"`
	OrgaoID               *int64        `json:"orgao_id,omitempty"`
	Orgao                 *Orgao        `json:"orgao,omitempty"`
	JornadaTrabalho       string        `json:"jornada_trabalho,omitempty"`
	TipoContratacao       string        `json:"tipo_contratacao"`
	Turno                 string        `json:"turno,omitempty"`
	Status                string        `json:"status,omitempty"`
	CreatedAt             time.Time     `json:"created_at,omitzero"`
	UpdatedAt             time.Time     `json:"updated_at,omitzero"`
}

// Empresa is a company (API document table 2.2). A single-resource answer
// holds its first 100 Empregos and EmpregosTotal, how many there are; the
// list of empregos filtered by empresa_id pages through all of them. The
// reverse arrays of Escolaridade, Orgao and Categoria are bounded alike.
type Empresa struct {
	ID            int64     `json:"id,omitempty"`
	Nome          string    `json:"nome"`
	Empregos      []Emprego `json:"empregos,omitempty"`
	EmpregosTotal int64     `json:"empregos_total,omitempty"`
}

// Escolaridade is an education level (API document table 2.3).
type Escolaridade struct {
	ID            int64     `json:"id,omitempty"`
	Nivel         string    `json:"nivel"`
	Empregos      []Emprego `json:"empregos,omitempty"`
	EmpregosTotal int64     `json:"empregos_total,omitempty"`
}

// Orgao is a public body (API document table 2.4).
type Orgao struct {
	ID            int64     `json:"id,omitempty"`
	Nome          string    `json:"nome"`
	Cursos        []Curso   `json:"cursos,omitempty"`
	CursosTotal   int64     `json:"cursos_total,omitempty"`
	Empregos      []Emprego `json:"empregos,omitempty"`
	EmpregosTotal int64     `json:"empregos_total,omitempty"`
}

// Categoria is a course category (API document table 2.5).
type Categoria struct {
	ID          int64   `json:"id,omitempty"`
	Nome        string  `json:"nome"`
	Cursos      []Curso `json:"cursos,omitempty"`
	CursosTotal int64   `json:"cursos_total,omitempty"`
}

// Curso is a course (API document table 2.6). CategoriaIDs links it to categories in a
// request; Categorias lists them in a response.
type Curso struct {
	ID                     int64       `json:"id,omitempty"`
	Title                  string      `json:"title"`
	Description            *string     `json:"description,omitempty"`
	Theme                  *string     `json:"theme,omitempty"`
	Organization           *string     `json:"organization,omitempty"`
	OrgaoID                *int64      `json:"orgao_id,omitempty"`
	InstituicaoID          *int64      `json:"instituicao_id,omitempty"`
	Facilitator            *string     `json:"facilitator,omitempty"`
	Objectives             *string     `json:"objectives,omitempty"`
	ExpectedResults        *string     `json:"expected_results,omitempty"`
	Methodology            *string     `json:"methodology,omitempty"`
	ProgramContent         *string     `json:"program_content,omitempty"`
	TargetAudience         *string     `json:"target_audience,omitempty"`
	PreRequisitos          *string     `json:"pre_requisitos,omitempty"`
	MaterialUsed           *string     `json:"material_used,omitempty"`
	ResourcesUsed          *string     `json:"resources_used,omitempty"`
	TeachingMaterial       *string     `json:"teaching_material,omitempty"`
	Workload               *string     `json:"workload,omitempty"`
	CargaHoraria           *int        `json:"carga_horaria,omitempty"`
	NumeroVagas            *int        `json:"numero_vagas,omitempty"`
	LocalRealizacao        *string     `json:"local_realizacao,omitempty"`
	ContatoDuvidas         *string     `json:"contato_duvidas,omitempty"`
	LinkInscricao          *string     `json:"link_inscricao,omitempty"`
	CoverImage             *string     `json:"cover_image,omitempty"`
	InstitutionalLogo      *string     `json:"institutional_logo,omitempty"`
	HasCertificate         *bool       `json:"has_certificate,omitempty"`
	CertificacaoOferecida  *bool       `json:"certificacao_oferecida,omitempty"`
	IsExternalPartner      *bool       `json:"is_external_partner,omitempty"`
	ExternalPartnerName    *string     `json:"external_partner_name,omitempty"`
	ExternalPartnerContact *string     `json:"external_partner_contact,omitempty"`
	ExternalPartnerURL     *string     `json:"external_partner_url,omitempty"`
	ExternalPartnerLogoURL *string     `json:"external_partner_logo_url,omitempty"`
	DataInicio             *time.Time  `json:"data_inicio,omitempty"`
	DataTermino            *time.Time  `json:"data_termino,omitempty"`
	DataLimiteInscricoes   *time.Time  `json:"data_limite_inscricoes,omitempty"`
	EnrollmentStartDate    *time.Time  `json:"enrollment_start_date,omitempty"`
	EnrollmentEndDate      *time.Time  `json:"enrollment_end_date,omitempty"`
	FormatoAula            string      `json:"formato_aula,omitempty"`
	Modalidade             string      `json:"modalidade"`
	Status                 string      `json:"status,omitempty"`
	Turno                  string      `json:"turno,omitempty"`
	CategoriaIDs           []int64     `json:"categoria_ids,omitempty"`
	Categorias             []Categoria `json:"categorias,omitempty"`
	CreatedAt              time.Time   `json:"created_at,omitzero"`
	UpdatedAt              time.Time   `json:"updated_at,omitzero"`
}
