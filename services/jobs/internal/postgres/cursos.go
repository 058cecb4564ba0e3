package postgres

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/problem"

	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// cursos implements jobs.Resource for courses.
type cursos struct {
	db *gorm.DB
}

// Create inserts a course and its links to categorias in one transaction.
func (s cursos) Create(ctx context.Context, in *jobs.CursoInput) (*jobs.Curso, error) {
	var out jobs.Curso
	err := inTx(ctx, s.db, func(tx *gorm.DB) error {
		row := cursoRow{CursoFields: in.CursoFields}
		if err := tx.Omit(clause.Associations).Clauses(clause.Returning{}).Create(&row).Error; err != nil {
			return err
		}
		if err := linkCategorias(tx, row.ID, in.CategoriaIDs); err != nil {
			return err
		}
		return withCategorias(tx, row, &out)
	})
	return orNil(&out, mapErr("create curso", explainDangling(ctx, s.db, err, cursoTargets(in))))
}

// Dangling implements jobs.References.
func (s cursos) Dangling(ctx context.Context, in *jobs.CursoInput, v *problem.Violations) error {
	return addDangling(pg.Conn(ctx, s.db), v, cursoTargets(in)...)
}

// Get returns the course with id and its categorias.
func (s cursos) Get(ctx context.Context, id int64) (*jobs.Curso, error) {
	var out jobs.Curso
	err := readTx(ctx, s.db, func(tx *gorm.DB) error {
		var rows []cursoRow
		if err := tx.Where("id = ?", id).Limit(1).Find(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 {
			return notFound("curso", id)
		}
		return withCategorias(tx, rows[0], &out)
	})
	return orNil(&out, mapErr("get curso", err))
}

// List returns a page of courses matching f, with their categorias.
func (s cursos) List(ctx context.Context, f jobs.CursoFilter, p jobs.Page) (*jobs.List[jobs.Curso], error) {
	return list(ctx, s.db, "cursos", cursoFilter(f), p, cursoRow.curso, embedCategorias)
}

// Update replaces every writable member of the course with id and its set
// of categorias.
func (s cursos) Update(ctx context.Context, id int64, in *jobs.CursoInput) (*jobs.Curso, error) {
	var out jobs.Curso
	err := inTx(ctx, s.db, func(tx *gorm.DB) error {
		row := cursoRow{ID: id, CursoFields: in.CursoFields}
		res := tx.Model(&row).Select("*").Omit("id", "created_at", clause.Associations).
			Clauses(clause.Returning{}).Updates(&row)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return notFound("curso", id)
		}
		if err := tx.Where("curso_id = ?", id).Delete(&cursoCategoriaRow{}).Error; err != nil {
			return err
		}
		if err := linkCategorias(tx, id, in.CategoriaIDs); err != nil {
			return err
		}
		return withCategorias(tx, row, &out)
	})
	return orNil(&out, mapErr("update curso", explainDangling(ctx, s.db, err, cursoTargets(in))))
}

// Delete removes the course with id and its links to categorias.
func (s cursos) Delete(ctx context.Context, id int64) error {
	res := pg.Conn(ctx, s.db).Delete(&cursoRow{}, id)
	if res.Error == nil && res.RowsAffected == 0 {
		return notFound("curso", id)
	}
	return mapErr("delete curso", res.Error)
}

// linkCategorias links course id to each of categoriaIDs.
func linkCategorias(tx *gorm.DB, id int64, categoriaIDs []int64) error {
	if len(categoriaIDs) == 0 {
		return nil
	}
	links := make([]cursoCategoriaRow, len(categoriaIDs))
	for i, c := range categoriaIDs {
		links[i] = cursoCategoriaRow{CursoID: id, CategoriaID: c}
	}
	return tx.Create(&links).Error
}

// withCategorias builds the course of row with its categorias into out.
func withCategorias(tx *gorm.DB, row cursoRow, out *jobs.Curso) error {
	items := []jobs.Curso{row.curso()}
	if err := embedCategorias(tx, items); err != nil {
		return err
	}
	*out = items[0]
	return nil
}

// cursoFilter turns a list filter into WHERE conditions.
func cursoFilter(f jobs.CursoFilter) func(*gorm.DB) *gorm.DB {
	return func(q *gorm.DB) *gorm.DB {
		q = where(q, "orgao_id", f.OrgaoID)
		q = where(q, "instituicao_id", f.InstituicaoID)
		q = where(q, "formato_aula", f.FormatoAula)
		q = where(q, "modalidade", f.Modalidade)
		q = where(q, "status", f.Status)
		q = where(q, "turno", f.Turno)
		if f.CategoriaID != nil {
			q = q.Where("id IN (SELECT curso_id FROM curso_categorias WHERE categoria_id = ?)", *f.CategoriaID)
		}
		return q
	}
}

// cursoTargets lists the references of a course that must exist.
func cursoTargets(in *jobs.CursoInput) []target {
	return []target{
		{field: "orgao_id", table: "orgaos", ids: idOf(in.OrgaoID)},
		{field: "categoria_ids", table: "categorias", ids: in.CategoriaIDs},
	}
}
