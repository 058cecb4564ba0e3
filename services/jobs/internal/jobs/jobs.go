// Package jobs holds the domain of the jobs and courses service: job postings
// (Emprego), companies, education levels, public bodies, course categories and
// courses, the rules their fields obey, the status machine of a posting, and
// the storage interfaces that internal/postgres implements. Table numbers in
// comments are those of the municipal services API document, and the rules
// it leaves open are in docs/decisions.md#job-postings-and-courses.
package jobs

import (
	"context"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Resource is the storage of one kind of resource: In is what a client sends,
// Out what it gets back, F the filter of its list.
type Resource[In, Out, F any] interface {
	// Create stores a new resource and returns it as stored.
	Create(ctx context.Context, in *In) (*Out, error)
	// Get returns the resource with id, or a not-found error.
	Get(ctx context.Context, id int64) (*Out, error)
	// List returns one page of the resources that match f.
	List(ctx context.Context, f F, p Page) (*List[Out], error)
	// Update replaces the writable fields of the resource with id.
	Update(ctx context.Context, id int64, in *In) (*Out, error)
	// Delete removes the resource with id; a resource still referenced by
	// others is a conflict.
	Delete(ctx context.Context, id int64) error
}

// References is implemented by the storage of a resource whose input
// refers to other rows (a posting's empresa_id, a course's categoria_ids).
type References[In any] interface {
	// Dangling adds to v a "not_found" violation for every reference of in
	// that points at no row; references v already flags are not looked up.
	Dangling(ctx context.Context, in *In, v *problem.Violations) error
}

// EmpregoService stores job postings and moves them through their status machine.
type EmpregoService interface {
	Resource[EmpregoInput, Emprego, EmpregoFilter]
	// SetStatus moves the posting with id to status to, or fails with a
	// conflict when the status machine forbids the change.
	SetStatus(ctx context.Context, id int64, to EmpregoStatus) (*Emprego, error)
}

// Store gives access to every resource of the service.
type Store interface {
	// Empregos stores job postings.
	Empregos() EmpregoService
	// Empresas stores companies.
	Empresas() Resource[NomeInput, Empresa, NameFilter]
	// Escolaridades stores education levels.
	Escolaridades() Resource[EscolaridadeInput, Escolaridade, NameFilter]
	// Orgaos stores public bodies.
	Orgaos() Resource[NomeInput, Orgao, NameFilter]
	// Categorias stores course categories.
	Categorias() Resource[NomeInput, Categoria, NameFilter]
	// Cursos stores courses.
	Cursos() Resource[CursoInput, Curso, CursoFilter]
}
