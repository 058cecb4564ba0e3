package postgres

import (
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// page counts the rows that where selects and reads one page of them in id
// order into rows (pg.CountPage); callers run it inside a transaction.
func page[R any](tx *gorm.DB, where func(*gorm.DB) *gorm.DB, p jobs.Page, rows *[]R) (int64, error) {
	return pg.CountPage(where(tx.Model(new(R))), "id", p.PerPage, int(p.Offset()), rows)
}
