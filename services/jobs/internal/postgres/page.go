package postgres

import (
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// page counts the rows that where selects and reads one page of them in id
// order into rows; callers run it inside a transaction. A page past the end
// skips the second query.
func page[R any](tx *gorm.DB, where func(*gorm.DB) *gorm.DB, p jobs.Page, rows *[]R) (int64, error) {
	var total int64
	if err := where(tx.Model(new(R))).Count(&total).Error; err != nil {
		return 0, err
	}
	if total == 0 || p.Offset() >= total {
		return total, nil
	}
	err := where(tx.Model(new(R))).Order("id").Limit(p.PerPage).Offset(int(p.Offset())).Find(rows).Error
	return total, err
}
