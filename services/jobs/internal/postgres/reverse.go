package postgres

import (
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

func empresa(r nameRow) jobs.Empresa           { return jobs.Empresa{ID: r.ID, Nome: r.Name} }
func escolaridade(r nameRow) jobs.Escolaridade { return jobs.Escolaridade{ID: r.ID, Nivel: r.Name} }
func orgao(r nameRow) jobs.Orgao               { return jobs.Orgao{ID: r.ID, Nome: r.Name} }
func categoria(r nameRow) jobs.Categoria       { return jobs.Categoria{ID: r.ID, Nome: r.Name} }

func empresaReverse(tx *gorm.DB, e *jobs.Empresa) (err error) {
	e.Empregos, e.EmpregosTotal, err = firstEmpregos(tx, "empresa_id = ?", e.ID)
	return err
}

func escolaridadeReverse(tx *gorm.DB, e *jobs.Escolaridade) (err error) {
	e.Empregos, e.EmpregosTotal, err = firstEmpregos(tx, "escolaridade_id = ?", e.ID)
	return err
}

func orgaoReverse(tx *gorm.DB, o *jobs.Orgao) (err error) {
	if o.Cursos, o.CursosTotal, err = firstCursos(tx, "orgao_id = ?", o.ID); err != nil {
		return err
	}
	o.Empregos, o.EmpregosTotal, err = firstEmpregos(tx, "orgao_id = ?", o.ID)
	return err
}

func categoriaReverse(tx *gorm.DB, c *jobs.Categoria) (err error) {
	c.Cursos, c.CursosTotal, err = firstCursos(tx, "id IN (SELECT curso_id FROM curso_categorias WHERE categoria_id = ?)", c.ID)
	return err
}

// firstEmpregos returns the first jobs.MaxEmbedded postings matching a
// condition in id order, without their relation objects (they are nested in
// another resource), and how many match in all.
func firstEmpregos(tx *gorm.DB, cond string, args ...any) ([]jobs.Emprego, *int64, error) {
	rows, total, err := first[empregoRow](tx, cond, args...)
	out := make([]jobs.Emprego, len(rows))
	for i, r := range rows {
		out[i] = r.emprego()
	}
	return out, total, err
}

// firstCursos returns the first jobs.MaxEmbedded courses matching a
// condition in id order, without their categorias (they are nested in
// another resource), and how many match in all.
func firstCursos(tx *gorm.DB, cond string, args ...any) ([]jobs.Curso, *int64, error) {
	rows, total, err := first[cursoRow](tx, cond, args...)
	out := make([]jobs.Curso, len(rows))
	for i, r := range rows {
		out[i] = r.curso()
	}
	return out, total, err
}

// first reads the first jobs.MaxEmbedded rows matching a condition in id
// order and counts them all; the count runs only when the page is full.
func first[R any](tx *gorm.DB, cond string, args ...any) ([]R, *int64, error) {
	var rows []R
	if err := tx.Where(cond, args...).Order("id").Limit(jobs.MaxEmbedded).Find(&rows).Error; err != nil {
		return nil, nil, err
	}
	total := int64(len(rows))
	if len(rows) == jobs.MaxEmbedded {
		if err := tx.Model(new(R)).Where(cond, args...).Count(&total).Error; err != nil {
			return nil, nil, err
		}
	}
	return rows, &total, nil
}
