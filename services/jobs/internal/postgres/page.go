package postgres

import (
	"context"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// list is the List of every resource: it counts the rows of R that where
// selects and reads one page of them in id order (pg.CountPage, columns
// as it takes them), in one snapshot; item makes each row the resource,
// and embed, when set, adds to the page's items the objects they embed.
// what names the rows in an error.
func list[R, T any](ctx context.Context, db *gorm.DB, what string, where func(*gorm.DB) *gorm.DB, p jobs.Page,
	item func(R) T, embed func(*gorm.DB, []T) error, columns ...any) (*jobs.List[T], error) {
	var items []T
	var total int64
	err := readTx(ctx, db, func(tx *gorm.DB) error {
		var rows []R
		var err error
		if total, err = pg.CountPage(where(tx.Model(new(R))), "id", p.PerPage, int(p.Offset()), &rows, columns...); err != nil {
			return err
		}
		items = make([]T, len(rows))
		for i, r := range rows {
			items[i] = item(r)
		}
		if embed == nil {
			return nil
		}
		return embed(tx, items)
	})
	if err != nil {
		return nil, mapErr("list "+what, err)
	}
	return jobs.NewList(items, p, total), nil
}
