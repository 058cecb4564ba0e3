// Package http is the HTTP interface of the jobs service: gin handlers that
// decode requests, apply the domain rules, call the store and encode the
// answers. It holds no SQL; errors are rendered by pkg/problem.
package http

import (
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// Scopes of the service (docs/decisions.md#realm-clients-and-scopes).
const (
	ScopeRead  = "jobs:read"
	ScopeWrite = "jobs:write"
)

// Prefix is the path under which every resource lives.
const Prefix = "/api/v1"

// Options wires the handler to its dependencies.
type Options struct {
	Store        jobs.Store
	Auth         auth.Authenticator // the token verifier, or a TokenCache of it
	Idempotency  *idempotency.Keys  // guards every POST and PATCH
	Logger       *slog.Logger
	Metrics      *server.Metrics
	MaxBodyBytes int64
	Tracer       trace.TracerProvider // nil: no spans
}

// New returns the complete handler of the service: the API under Prefix
// behind bearer authentication, its POSTs and PATCHes safe to retry with an
// Idempotency-Key, /openapi.json without a token, and the shared /livez
// with request ids, logs and limits (the readiness checks and metrics are
// served on the admin listener by the app).
func New(o Options) http.Handler {
	engine := server.NewGin()
	engine.GET("/openapi.json", server.OpenAPI(OpenAPI))
	api := engine.Group(Prefix, auth.Middleware(o.Auth), server.Preconditions)
	register(api, guards{read: auth.RequireScope(ScopeRead), write: auth.RequireScope(ScopeWrite),
		idempotent: o.Idempotency.Wrap}, o.Store)
	return server.Handler(server.Options{
		Logger:       o.Logger,
		Metrics:      o.Metrics,
		MaxBodyBytes: o.MaxBodyBytes,
		App:          engine,
		Tracer:       o.Tracer,
	})
}

// guards are what stands in front of the handlers: the scope checks, and
// the Idempotency-Key handling that wraps the non-idempotent writes.
type guards struct {
	read, write gin.HandlerFunc
	idempotent  func(gin.HandlerFunc) gin.HandlerFunc
}

// register adds the routes of every resource to api.
func register(api *gin.RouterGroup, g guards, s jobs.Store) {
	empregos := s.Empregos()
	resource[jobs.EmpregoInput, jobs.Emprego, jobs.EmpregoFilter]{
		path: "empregos", name: "emprego", readOnly: jobs.EmpregoReadOnly, store: empregos,
		validateNew: (*jobs.EmpregoInput).ValidateNew, validate: (*jobs.EmpregoInput).Validate,
		filter: empregoFilter, id: func(e *jobs.Emprego) int64 { return e.ID },
	}.register(api, g)
	api.PATCH("/empregos/:id/status", g.write, noQuery, g.idempotent(setStatus(empregos)))

	resource[jobs.CursoInput, jobs.Curso, jobs.CursoFilter]{
		path: "cursos", name: "curso", readOnly: jobs.CursoReadOnly, store: s.Cursos(),
		validateNew: (*jobs.CursoInput).Validate, validate: (*jobs.CursoInput).Validate,
		filter: cursoFilter, id: func(c *jobs.Curso) int64 { return c.ID },
	}.register(api, g)

	empregosOf := func(filter string) related { return related{member: "empregos", list: "empregos", filter: filter} }
	cursosOf := func(filter string) related { return related{member: "cursos", list: "cursos", filter: filter} }
	named[jobs.Empresa]{path: "empresas", name: "empresa", store: s.Empresas(),
		id: func(e *jobs.Empresa) int64 { return e.ID }, related: []related{empregosOf("empresa_id")}}.register(api, g)
	named[jobs.Orgao]{path: "orgaos", name: "orgao", store: s.Orgaos(),
		id: func(o *jobs.Orgao) int64 { return o.ID }, related: []related{empregosOf("orgao_id"), cursosOf("orgao_id")}}.register(api, g)
	named[jobs.Categoria]{path: "categorias", name: "categoria", store: s.Categorias(), unique: true,
		id: func(c *jobs.Categoria) int64 { return c.ID }, related: []related{cursosOf("categoria_id")}}.register(api, g)
	escolaridade := []related{empregosOf("escolaridade_id")}
	resource[jobs.EscolaridadeInput, jobs.Escolaridade, jobs.NameFilter]{
		path: "escolaridades", name: "escolaridade", readOnly: readOnlyOf(escolaridade), related: escolaridade,
		store: s.Escolaridades(), validateNew: (*jobs.EscolaridadeInput).Validate, validate: (*jobs.EscolaridadeInput).Validate,
		filter: nameFilter("nivel", true), id: func(e *jobs.Escolaridade) int64 { return e.ID },
	}.register(api, g)
}

// named describes, by name, a resource whose body is a NomeInput: nome is
// its only writable member, and a unique nome is normalized before it is
// checked, stored or looked up.
type named[Out any] struct {
	path, name string // collection segment and singular, as in resource
	unique     bool
	related    []related // its reverse arrays
	store      jobs.Resource[jobs.NomeInput, Out, jobs.NameFilter]
	id         func(*Out) int64
}

// register adds the routes of the resource n describes.
func (n named[Out]) register(api *gin.RouterGroup, g guards) {
	validate := (*jobs.NomeInput).Validate
	if n.unique {
		validate = (*jobs.NomeInput).ValidateUnique
	}
	resource[jobs.NomeInput, Out, jobs.NameFilter]{
		path: n.path, name: n.name, readOnly: readOnlyOf(n.related), related: n.related, store: n.store,
		validateNew: validate, validate: validate, filter: nameFilter("nome", n.unique), id: n.id,
	}.register(api, g)
}

// readOnlyOf lists the read-only members of a resource whose only writable
// member is its name: its id and each reverse array with its total.
func readOnlyOf(rel []related) []string {
	out := []string{"id"}
	for _, r := range rel {
		out = append(out, r.member, r.member+"_total")
	}
	return out
}

// noQuery refuses a query parameter on an operation that reads none; the
// lists read theirs and refuse the rest (query.err).
var noQuery = server.RefuseQuery("unknown_parameter")
