package postgres

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// named stores a resource whose only writable member is its name: In is
// the request body, Out the resource answered. name reads the name of an
// In; build turns a row into the resource; reverse loads its reverse
// arrays, which single-resource responses embed and lists omit.
type named[In, Out any] struct {
	db      *gorm.DB
	t       table
	name    func(*In) string
	build   func(r nameRow) Out
	reverse func(tx *gorm.DB, out *Out) error
}

// Create inserts a row and returns it with its (empty) reverse arrays.
func (n named[In, Out]) Create(ctx context.Context, in *In) (*Out, error) {
	var out Out
	err := inTx(ctx, n.db, func(tx *gorm.DB) error {
		var r nameRow
		err := tx.Raw("INSERT INTO ? (?) VALUES (?) RETURNING id, ? AS name",
			n.table(), n.col(), n.name(in), n.col()).Scan(&r).Error
		if err != nil {
			return err
		}
		return n.full(tx, r, &out)
	})
	return orNil(&out, mapErr("create "+n.t.resource, err))
}

// Get returns the row with id and its reverse arrays.
func (n named[In, Out]) Get(ctx context.Context, id int64) (*Out, error) {
	var out Out
	err := readTx(ctx, n.db, func(tx *gorm.DB) error {
		r, err := n.take(tx, id)
		if err != nil {
			return err
		}
		return n.full(tx, r, &out)
	})
	return orNil(&out, mapErr("get "+n.t.resource, err))
}

// List returns a page of rows in id order, without reverse arrays.
func (n named[In, Out]) List(ctx context.Context, f jobs.NameFilter, p jobs.Page) (*jobs.List[Out], error) {
	where := func(tx *gorm.DB) *gorm.DB {
		q := tx.Table(n.t.name)
		if f.Name != nil {
			q = q.Where("lower(?) = lower(?)", n.col(), *f.Name)
		}
		return q
	}
	return list(ctx, n.db, n.t.name, where, p, n.build, nil, "id, ? AS name", n.col())
}

// Update replaces the name of the row with id.
func (n named[In, Out]) Update(ctx context.Context, id int64, in *In) (*Out, error) {
	var out Out
	err := inTx(ctx, n.db, func(tx *gorm.DB) error {
		res := tx.Table(n.t.name).Where("id = ?", id).Update(n.t.column, n.name(in))
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return notFound(n.t.resource, id)
		}
		return n.full(tx, nameRow{ID: id, Name: n.name(in)}, &out)
	})
	return orNil(&out, mapErr("update "+n.t.resource, err))
}

// Delete removes the row with id unless other rows still reference it.
func (n named[In, Out]) Delete(ctx context.Context, id int64) error {
	err := inTx(ctx, n.db, func(tx *gorm.DB) error {
		if err := referenced(tx, n.t, id); err != nil {
			return err
		}
		res := tx.Exec("DELETE FROM ? WHERE id = ?", n.table(), id)
		switch {
		case pg.IsCode(res.Error, pg.ForeignKeyViolation):
			return referencedMeanwhile(n.t, id, res.Error)
		case res.Error != nil:
			return res.Error
		case res.RowsAffected == 0:
			return notFound(n.t.resource, id)
		}
		return nil
	})
	return mapErr("delete "+n.t.resource, err)
}

func (n named[In, Out]) take(tx *gorm.DB, id int64) (nameRow, error) {
	var rows []nameRow
	err := tx.Table(n.t.name).Select("id, ? AS name", n.col()).Where("id = ?", id).Limit(1).Scan(&rows).Error
	if err != nil {
		return nameRow{}, err
	}
	if len(rows) == 0 {
		return nameRow{}, notFound(n.t.resource, id)
	}
	return rows[0], nil
}

func (n named[In, Out]) table() clause.Table { return clause.Table{Name: n.t.name} }
func (n named[In, Out]) col() clause.Column  { return clause.Column{Name: n.t.column} }

// full builds the resource of r with its reverse arrays into out.
func (n named[In, Out]) full(tx *gorm.DB, r nameRow, out *Out) error {
	*out = n.build(r)
	return n.reverse(tx, out)
}
