package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/problem"
)

// referenced returns a conflict naming every resource that still points at
// row id of t, or nil when none does. Deletes never cascade into postings.
func referenced(tx *gorm.DB, t table, id int64) error {
	var found []problem.FieldError
	var parts []string
	for _, r := range t.refs {
		var n int64
		if err := tx.Table(r.table).Where("? = ?", clause.Column{Name: r.column}, id).Count(&n).Error; err != nil {
			return fmt.Errorf("count %s referencing %s %d: %w", r.resource, t.resource, id, err)
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, r.resource))
			found = append(found, problem.FieldError{Field: r.resource, Code: "referenced",
				Message: fmt.Sprintf("%d %s refer to this %s", n, r.resource, t.resource)})
		}
	}
	if len(found) == 0 {
		return nil
	}
	e := problem.Errorf(problem.ECONFLICT, "%s %d is still referenced by %s; delete them or point them elsewhere first",
		t.resource, id, strings.Join(parts, " and "))
	e.Fields = found
	return e
}

// referencedMeanwhile is the conflict for a delete that a reference created
// after the check blocked at the foreign key.
func referencedMeanwhile(t table, id int64, cause error) error {
	names := make([]string, len(t.refs))
	for i, r := range t.refs {
		names[i] = r.resource
	}
	return problem.Wrap(problem.ECONFLICT, cause, fmt.Sprintf("%s %d is still referenced by %s; delete them or point them elsewhere first",
		t.resource, id, strings.Join(names, " or ")))
}

// target is one *_id member of a request and the table its ids must exist in.
type target struct {
	field string
	table string
	ids   []int64
}

// idOf lists the id of an optional reference, or nothing when it is absent.
func idOf(id *int64) []int64 {
	if id == nil {
		return nil
	}
	return []int64{*id}
}

// explainDangling turns the foreign-key violation of a failed write into one
// 422 naming every reference that points at no row, so a client learns of
// all of them at once instead of the first one the foreign keys stopped at.
// Valid writes pay nothing: the lookups run only after a violation, outside
// the transaction it aborted. Any other error, or a failed lookup, is
// returned as it was.
func explainDangling(ctx context.Context, db *gorm.DB, err error, targets []target) error {
	if !pg.IsCode(err, pg.ForeignKeyViolation) {
		return err
	}
	if missing := dangling(pg.Conn(ctx, db), targets...); problem.Is(missing, problem.EINVALID) {
		return missing
	}
	return err
}

// dangling returns one 422 naming every reference that points at no row.
func dangling(tx *gorm.DB, targets ...target) error {
	var v problem.Violations
	if err := addDangling(tx, &v, targets...); err != nil {
		return err
	}
	return v.Err()
}

// addDangling adds to v a violation for every reference that points at no
// row, skipping the members v already flags (a wrong type, too many ids).
func addDangling(tx *gorm.DB, v *problem.Violations, targets ...target) error {
	for _, t := range targets {
		if len(t.ids) == 0 || v.Has(t.field) {
			continue
		}
		var found []int64
		if err := tx.Table(t.table).Where("id IN ?", t.ids).Pluck("id", &found).Error; err != nil {
			return fmt.Errorf("look up %s: %w", t.table, err)
		}
		for _, id := range t.ids {
			if !slices.Contains(found, id) {
				v.Addf(t.field, "not_found", "refers to %s %d, which does not exist", strings.TrimSuffix(t.table, "s"), id)
			}
		}
	}
	return nil
}
