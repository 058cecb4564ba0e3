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
	e.Empregos, err = empregosWhere(tx, "empresa_id = ?", e.ID)
	return err
}

func escolaridadeReverse(tx *gorm.DB, e *jobs.Escolaridade) (err error) {
	e.Empregos, err = empregosWhere(tx, "escolaridade_id = ?", e.ID)
	return err
}

func orgaoReverse(tx *gorm.DB, o *jobs.Orgao) (err error) {
	if o.Cursos, err = cursosWhere(tx, "orgao_id = ?", o.ID); err != nil {
		return err
	}
	o.Empregos, err = empregosWhere(tx, "orgao_id = ?", o.ID)
	return err
}

func categoriaReverse(tx *gorm.DB, c *jobs.Categoria) (err error) {
	c.Cursos, err = cursosWhere(tx, "id IN (SELECT curso_id FROM curso_categorias WHERE categoria_id = ?)", c.ID)
	return err
}

// empregosWhere returns the postings matching a condition in id order,
// without their relation objects (they are nested in another resource).
func empregosWhere(tx *gorm.DB, cond string, args ...any) ([]jobs.Emprego, error) {
	var rows []empregoRow
	if err := tx.Where(cond, args...).Order("id").Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]jobs.Emprego, len(rows))
	for i, r := range rows {
		out[i] = r.emprego()
	}
	return out, nil
}

// cursosWhere returns the courses matching a condition in id order, without
// their categorias (they are nested in another resource).
func cursosWhere(tx *gorm.DB, cond string, args ...any) ([]jobs.Curso, error) {
	var rows []cursoRow
	if err := tx.Where(cond, args...).Order("id").Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]jobs.Curso, len(rows))
	for i, r := range rows {
		out[i] = r.curso()
	}
	return out, nil
}
