// Package postgres stores the jobs domain in PostgreSQL through GORM. It is
// the only package that knows SQL: tables, constraint names and queries.
// Writes never upsert associations: relation objects are loaded, never saved.
package postgres

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// Store implements jobs.Store on a GORM connection.
type Store struct {
	db *gorm.DB
}

var _ jobs.Store = (*Store)(nil)

// New returns a Store on db, typically opened with pg.Open.
func New(db *gorm.DB) *Store {
	return &Store{db: db}
}

// Empregos stores job postings.
func (s *Store) Empregos() jobs.EmpregoService { return empregos{db: s.db} }

// Empresas stores companies.
func (s *Store) Empresas() jobs.Resource[jobs.NomeInput, jobs.Empresa, jobs.NameFilter] {
	return named[jobs.NomeInput, jobs.Empresa]{db: s.db, t: empresasTable, name: (*jobs.NomeInput).Name, build: empresa, reverse: empresaReverse}
}

// Escolaridades stores education levels.
func (s *Store) Escolaridades() jobs.Resource[jobs.EscolaridadeInput, jobs.Escolaridade, jobs.NameFilter] {
	return named[jobs.EscolaridadeInput, jobs.Escolaridade]{db: s.db, t: escolaridadesTable, name: (*jobs.EscolaridadeInput).Name, build: escolaridade, reverse: escolaridadeReverse}
}

// Orgaos stores public bodies.
func (s *Store) Orgaos() jobs.Resource[jobs.NomeInput, jobs.Orgao, jobs.NameFilter] {
	return named[jobs.NomeInput, jobs.Orgao]{db: s.db, t: orgaosTable, name: (*jobs.NomeInput).Name, build: orgao, reverse: orgaoReverse}
}

// Categorias stores course categories.
func (s *Store) Categorias() jobs.Resource[jobs.NomeInput, jobs.Categoria, jobs.NameFilter] {
	return named[jobs.NomeInput, jobs.Categoria]{db: s.db, t: categoriasTable, name: (*jobs.NomeInput).Name, build: categoria, reverse: categoriaReverse}
}

// Cursos stores courses.
func (s *Store) Cursos() jobs.Resource[jobs.CursoInput, jobs.Curso, jobs.CursoFilter] {
	return cursos{db: s.db}
}

// mapErr turns a database error into a problem error with the operation as context.
func mapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, pg.MapError(err, fields))
}

// notFound is the 404 for a missing row.
func notFound(resource string, id int64) error {
	return problem.Errorf(problem.ENOTFOUND, "%s %d does not exist", resource, id)
}

// orNil returns out, or nil and err when err is set.
func orNil[T any](out *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return out, nil
}

// inTx runs fn in a transaction bound to ctx (or in the one ctx carries, see
// pg.Atomic); an error rolls everything back, and a transaction Postgres
// aborted for a conflict or a lost connection runs again (pg.Tx).
func inTx(ctx context.Context, db *gorm.DB, fn func(tx *gorm.DB) error) error {
	return pg.Tx(ctx, db, fn)
}

// readTx runs the statements of one read in a single snapshot (pg.Snapshot):
// a list's count agrees with its page, and a resource with what it embeds.
func readTx(ctx context.Context, db *gorm.DB, fn func(tx *gorm.DB) error) error {
	return pg.Tx(ctx, db, fn, pg.Snapshot)
}
