package pg

import (
	"fmt"

	"gorm.io/gorm"
)

// CountPage counts the rows q selects and reads those of one page (limit
// rows after offset, in order) into rows; a page past the end skips the
// read. Run it in one snapshot (Tx with Snapshot) so that the count is the
// count of what the pages hold. The read selects columns, when given (a
// query and its arguments, as gorm's Select takes them), and every column
// of the table otherwise: the count counts rows whatever the read selects.
func CountPage[R any](q *gorm.DB, order string, limit, offset int, rows *[]R, columns ...any) (int64, error) {
	q = q.Session(&gorm.Session{}) // the count and the read share the conditions
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	if total == 0 || int64(offset) >= total {
		return total, nil
	}
	if len(columns) > 0 {
		q = q.Select(columns[0], columns[1:]...)
	}
	return total, q.Order(order).Limit(limit).Offset(offset).Find(rows).Error
}
