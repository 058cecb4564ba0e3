package http

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// setStatus serves PATCH /empregos/{id}/status: a change of status through
// the status machine, 409 when it forbids the change.
func setStatus(s jobs.EmpregoService) gin.HandlerFunc {
	return func(c *gin.Context) {
		id, err := pathID(c, "emprego")
		if err != nil {
			problem.Abort(c, err)
			return
		}
		in, err := decode(c, nil, (*jobs.StatusInput).Validate)
		if err != nil {
			problem.Abort(c, err)
			return
		}
		out, err := s.SetStatus(c.Request.Context(), id, in.Status)
		respond(c, http.StatusOK, out, err)
	}
}

// empregoFilter reads the filters of GET /empregos.
func empregoFilter(q *query) jobs.EmpregoFilter {
	f := jobs.EmpregoFilter{
		EmpresaID:       q.id("empresa_id"),
		EscolaridadeID:  q.id("escolaridade_id"),
		OrgaoID:         q.id("orgao_id"),
		JornadaTrabalho: enum[jobs.Jornada](q, "jornada_trabalho"),
		TipoContratacao: enum[jobs.TipoContratacao](q, "tipo_contratacao"),
		Turno:           enum[jobs.Turno](q, "turno"),
		Status:          enum[jobs.EmpregoStatus](q, "status"),
	}
	f.Validate(q.v)
	return f
}

// cursoFilter reads the filters of GET /cursos.
func cursoFilter(q *query) jobs.CursoFilter {
	f := jobs.CursoFilter{
		OrgaoID:       q.id("orgao_id"),
		InstituicaoID: q.id("instituicao_id"),
		CategoriaID:   q.id("categoria_id"),
		FormatoAula:   enum[jobs.FormatoAula](q, "formato_aula"),
		Modalidade:    enum[jobs.Modalidade](q, "modalidade"),
		Status:        enum[jobs.CursoStatus](q, "status"),
		Turno:         enum[jobs.Turno](q, "turno"),
	}
	f.Validate(q.v)
	return f
}

// nameFilter reads the case-insensitive name filter of a named resource,
// whose query parameter is param; a unique name is looked up in the form
// it is stored in.
func nameFilter(param string, unique bool) func(*query) jobs.NameFilter {
	return func(q *query) jobs.NameFilter {
		name := q.text(param)
		if name != nil && unique {
			*name = jobs.UniqueName(*name)
		}
		return jobs.NameFilter{Name: name}
	}
}
