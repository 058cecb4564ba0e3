package client

import (
	"context"
	"net/http"
)

// Collections of the jobs and courses area, below Config.JobsBaseURL.
const (
	EmpregosPath      = "/api/v1/empregos"
	EmpresasPath      = "/api/v1/empresas"
	EscolaridadesPath = "/api/v1/escolaridades"
	OrgaosPath        = "/api/v1/orgaos"
	CategoriasPath    = "/api/v1/categorias"
	CursosPath        = "/api/v1/cursos"
)

// CreateEmprego creates a job posting (operation 3 of the API document).
func (c *Client) CreateEmprego(ctx context.Context, e *Emprego, opts ...Option) (*Emprego, error) {
	return call[Emprego](ctx, c, "create emprego", http.MethodPost, AreaJobs, EmpregosPath, e, opts)
}

// GetEmprego reads the job posting id with its relations.
func (c *Client) GetEmprego(ctx context.Context, id int64, opts ...Option) (*Emprego, error) {
	return call[Emprego](ctx, c, "get emprego", http.MethodGet, AreaJobs, intPath(EmpregosPath, id), nil, opts)
}

// ListEmpregos lists job postings; filters: empresa_id, escolaridade_id,
// orgao_id, jornada_trabalho, tipo_contratacao, turno, status.
func (c *Client) ListEmpregos(ctx context.Context, lo ListOptions, opts ...Option) (*Page[Emprego], error) {
	return list[Emprego](ctx, c, "list empregos", AreaJobs, EmpregosPath, lo, opts)
}

// UpdateEmprego replaces the job posting id with e; without a status the
// posting keeps its current one.
func (c *Client) UpdateEmprego(ctx context.Context, id int64, e *Emprego, opts ...Option) (*Emprego, error) {
	return call[Emprego](ctx, c, "update emprego", http.MethodPut, AreaJobs, intPath(EmpregosPath, id), e, opts)
}

// SetEmpregoStatus moves the job posting id to status through the status
// machine; a forbidden change is a conflict (IsConflict). Being a PATCH, it
// is retried only when opts carry WithIdempotencyKey.
func (c *Client) SetEmpregoStatus(ctx context.Context, id int64, status string, opts ...Option) (*Emprego, error) {
	body := struct {
		Status string `json:"status"`
	}{status}
	return call[Emprego](ctx, c, "set emprego status", http.MethodPatch, AreaJobs, intPath(EmpregosPath, id)+"/status", body, opts)
}

// CreateEscolaridade creates an education level (operation 4 of the API document).
func (c *Client) CreateEscolaridade(ctx context.Context, e *Escolaridade, opts ...Option) (*Escolaridade, error) {
	return call[Escolaridade](ctx, c, "create escolaridade", http.MethodPost, AreaJobs, EscolaridadesPath, e, opts)
}

// UpdateEscolaridade replaces the education level id (operation 5 of the
// API document); an unknown id is IsNotFound.
func (c *Client) UpdateEscolaridade(ctx context.Context, id int64, e *Escolaridade, opts ...Option) (*Escolaridade, error) {
	return call[Escolaridade](ctx, c, "update escolaridade", http.MethodPut, AreaJobs, intPath(EscolaridadesPath, id), e, opts)
}

// ListEscolaridades lists education levels; filter: nivel.
func (c *Client) ListEscolaridades(ctx context.Context, lo ListOptions, opts ...Option) (*Page[Escolaridade], error) {
	return list[Escolaridade](ctx, c, "list escolaridades", AreaJobs, EscolaridadesPath, lo, opts)
}

// CreateCategoria creates a course category (operation 6 of the API document).
func (c *Client) CreateCategoria(ctx context.Context, cat *Categoria, opts ...Option) (*Categoria, error) {
	return call[Categoria](ctx, c, "create categoria", http.MethodPost, AreaJobs, CategoriasPath, cat, opts)
}

// ListCategorias lists course categories; filter: nome.
func (c *Client) ListCategorias(ctx context.Context, lo ListOptions, opts ...Option) (*Page[Categoria], error) {
	return list[Categoria](ctx, c, "list categorias", AreaJobs, CategoriasPath, lo, opts)
}

// CreateEmpresa creates a company.
func (c *Client) CreateEmpresa(ctx context.Context, e *Empresa, opts ...Option) (*Empresa, error) {
	return call[Empresa](ctx, c, "create empresa", http.MethodPost, AreaJobs, EmpresasPath, e, opts)
}

// CreateOrgao creates a public body.
func (c *Client) CreateOrgao(ctx context.Context, o *Orgao, opts ...Option) (*Orgao, error) {
	return call[Orgao](ctx, c, "create orgao", http.MethodPost, AreaJobs, OrgaosPath, o, opts)
}

// CreateCurso creates a course.
func (c *Client) CreateCurso(ctx context.Context, cu *Curso, opts ...Option) (*Curso, error) {
	return call[Curso](ctx, c, "create curso", http.MethodPost, AreaJobs, CursosPath, cu, opts)
}
