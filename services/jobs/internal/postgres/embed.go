package postgres

import (
	"slices"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// embedEmpregoRelations sets the empresa, escolaridade and orgao objects of
// each posting, with one query per related table.
func embedEmpregoRelations(tx *gorm.DB, items []jobs.Emprego) error {
	empresas, err := namesByID(tx, empresasTable, items, func(e jobs.Emprego) *int64 { return e.EmpresaID })
	if err != nil {
		return err
	}
	escolaridades, err := namesByID(tx, escolaridadesTable, items, func(e jobs.Emprego) *int64 { return e.EscolaridadeID })
	if err != nil {
		return err
	}
	orgaos, err := namesByID(tx, orgaosTable, items, func(e jobs.Emprego) *int64 { return e.OrgaoID })
	if err != nil {
		return err
	}
	for i := range items {
		e := &items[i]
		e.Empresa = related(empresas, e.EmpresaID, empresa)
		e.Escolaridade = related(escolaridades, e.EscolaridadeID, escolaridade)
		e.Orgao = related(orgaos, e.OrgaoID, orgao)
	}
	return nil
}

// namesByID loads the rows of t that the items point at through key.
func namesByID[T any](tx *gorm.DB, t table, items []T, key func(T) *int64) (map[int64]nameRow, error) {
	var ids []int64
	for _, it := range items {
		if id := key(it); id != nil {
			ids = append(ids, *id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	slices.Sort(ids)
	var rows []nameRow
	err := tx.Table(t.name).Select("id, ? AS name", clause.Column{Name: t.column}).
		Where("id IN ?", slices.Compact(ids)).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	out := make(map[int64]nameRow, len(rows))
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}

// related builds the object a nullable foreign key points at, or nil.
func related[T any](rows map[int64]nameRow, id *int64, build func(nameRow) T) *T {
	if id == nil {
		return nil
	}
	r, ok := rows[*id]
	if !ok {
		return nil
	}
	out := build(r)
	return &out
}

// embedCategorias sets the categorias of each course, in id order; a course
// without categorias gets an empty array.
func embedCategorias(tx *gorm.DB, items []jobs.Curso) error {
	if len(items) == 0 {
		return nil
	}
	ids := make([]int64, len(items))
	for i, c := range items {
		ids[i] = c.ID
	}
	var rows []struct {
		CursoID int64
		ID      int64
		Name    string
	}
	err := tx.Table("curso_categorias cc").Select("cc.curso_id, c.id, c.nome AS name").
		Joins("JOIN categorias c ON c.id = cc.categoria_id").
		Where("cc.curso_id IN ?", ids).Order("cc.curso_id, c.id").Scan(&rows).Error
	if err != nil {
		return err
	}
	byCurso := make(map[int64][]jobs.Categoria, len(items))
	for _, r := range rows {
		byCurso[r.CursoID] = append(byCurso[r.CursoID], categoria(nameRow{ID: r.ID, Name: r.Name}))
	}
	for i := range items {
		items[i].Categorias = byCurso[items[i].ID]
		if items[i].Categorias == nil {
			items[i].Categorias = []jobs.Categoria{}
		}
	}
	return nil
}
