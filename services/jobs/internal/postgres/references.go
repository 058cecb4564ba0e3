package postgres

import (
	"fmt"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

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
