package postgres

import (
	"time"

	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// empregoRow is a row of the empregos table.
type empregoRow struct {
	ID int64 `gorm:"primaryKey"`
	jobs.EmpregoFields
	Status    jobs.EmpregoStatus
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TableName names the table of empregoRow for GORM.
func (empregoRow) TableName() string { return "empregos" }

func (r empregoRow) emprego() jobs.Emprego {
	return jobs.Emprego{ID: r.ID, EmpregoFields: r.EmpregoFields, Status: r.Status, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// cursoRow is a row of the cursos table.
type cursoRow struct {
	ID int64 `gorm:"primaryKey"`
	jobs.CursoFields
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TableName names the table of cursoRow for GORM.
func (cursoRow) TableName() string { return "cursos" }

func (r cursoRow) curso() jobs.Curso {
	return jobs.Curso{ID: r.ID, CursoFields: r.CursoFields, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// cursoCategoriaRow links a curso to one of its categorias.
type cursoCategoriaRow struct {
	CursoID     int64 `gorm:"primaryKey"`
	CategoriaID int64 `gorm:"primaryKey"`
}

// TableName names the table of cursoCategoriaRow for GORM.
func (cursoCategoriaRow) TableName() string { return "curso_categorias" }

// nameRow is a row of a table whose only member is a name: empresas,
// escolaridades, orgaos, categorias.
type nameRow struct {
	ID   int64
	Name string
}
