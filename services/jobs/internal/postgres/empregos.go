package postgres

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/problem"

	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// empregos implements jobs.EmpregoService.
type empregos struct {
	db *gorm.DB
}

// Create inserts a posting in its initial status and returns it as stored.
func (s empregos) Create(ctx context.Context, in *jobs.EmpregoInput) (*jobs.Emprego, error) {
	var out jobs.Emprego
	err := inTx(ctx, s.db, func(tx *gorm.DB) error {
		row := empregoRow{EmpregoFields: in.EmpregoFields, Status: in.InitialStatus()}
		if err := tx.Omit(clause.Associations).Clauses(clause.Returning{}).Create(&row).Error; err != nil {
			return err
		}
		return withRelations(tx, row, &out)
	})
	return orNil(&out, mapErr("create emprego", explainDangling(ctx, s.db, err, empregoTargets(in))))
}

// Dangling implements jobs.References.
func (s empregos) Dangling(ctx context.Context, in *jobs.EmpregoInput, v *problem.Violations) error {
	return addDangling(pg.Conn(ctx, s.db), v, empregoTargets(in)...)
}

// Get returns the posting with id and its relation objects.
func (s empregos) Get(ctx context.Context, id int64) (*jobs.Emprego, error) {
	var out jobs.Emprego
	err := readTx(ctx, s.db, func(tx *gorm.DB) error {
		row, err := takeEmprego(tx, id, false)
		if err != nil {
			return err
		}
		return withRelations(tx, row, &out)
	})
	return orNil(&out, mapErr("get emprego", err))
}

// List returns a page of postings matching f, with their relation objects.
func (s empregos) List(ctx context.Context, f jobs.EmpregoFilter, p jobs.Page) (*jobs.List[jobs.Emprego], error) {
	return list(ctx, s.db, "empregos", empregoFilter(f), p, empregoRow.emprego, embedEmpregoRelations)
}

// Update replaces every writable member of the posting with id; a status
// change must be allowed by the status machine.
func (s empregos) Update(ctx context.Context, id int64, in *jobs.EmpregoInput) (*jobs.Emprego, error) {
	var out jobs.Emprego
	err := inTx(ctx, s.db, func(tx *gorm.DB) error {
		cur, err := takeEmprego(tx, id, true)
		if err != nil {
			return err
		}
		row := empregoRow{ID: id, EmpregoFields: in.EmpregoFields, Status: cur.Status, CreatedAt: cur.CreatedAt}
		if in.Status != nil {
			if err := jobs.Transition(cur.Status, *in.Status); err != nil {
				return err
			}
			row.Status = *in.Status
		}
		err = tx.Model(&row).Select("*").Omit("id", "created_at", clause.Associations).
			Clauses(clause.Returning{}).Updates(&row).Error
		if err != nil {
			return err
		}
		return withRelations(tx, row, &out)
	})
	return orNil(&out, mapErr("update emprego", explainDangling(ctx, s.db, err, empregoTargets(in))))
}

// SetStatus moves the posting with id to status to when the machine allows it.
func (s empregos) SetStatus(ctx context.Context, id int64, to jobs.EmpregoStatus) (*jobs.Emprego, error) {
	var out jobs.Emprego
	err := inTx(ctx, s.db, func(tx *gorm.DB) error {
		row, err := takeEmprego(tx, id, true)
		if err != nil {
			return err
		}
		if err := jobs.Transition(row.Status, to); err != nil {
			return err
		}
		if row.Status != to {
			err := tx.Model(&empregoRow{ID: id}).Updates(map[string]any{"status": to, "updated_at": tx.NowFunc()}).Error
			if err != nil {
				return err
			}
			if row, err = takeEmprego(tx, id, false); err != nil {
				return err
			}
		}
		return withRelations(tx, row, &out)
	})
	return orNil(&out, mapErr("set emprego status", err))
}

// Delete removes the posting with id; nothing references postings.
func (s empregos) Delete(ctx context.Context, id int64) error {
	res := pg.Conn(ctx, s.db).Delete(&empregoRow{}, id)
	if res.Error == nil && res.RowsAffected == 0 {
		return notFound("emprego", id)
	}
	return mapErr("delete emprego", res.Error)
}

// takeEmprego reads the posting with id, locking it for update when lock is set.
func takeEmprego(tx *gorm.DB, id int64, lock bool) (empregoRow, error) {
	if lock {
		tx = tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate})
	}
	var rows []empregoRow
	if err := tx.Where("id = ?", id).Limit(1).Find(&rows).Error; err != nil {
		return empregoRow{}, err
	}
	if len(rows) == 0 {
		return empregoRow{}, notFound("emprego", id)
	}
	return rows[0], nil
}

// withRelations builds the posting of row with its relation objects into out.
func withRelations(tx *gorm.DB, row empregoRow, out *jobs.Emprego) error {
	items := []jobs.Emprego{row.emprego()}
	if err := embedEmpregoRelations(tx, items); err != nil {
		return err
	}
	*out = items[0]
	return nil
}

// empregoFilter turns a list filter into WHERE conditions.
func empregoFilter(f jobs.EmpregoFilter) func(*gorm.DB) *gorm.DB {
	return func(q *gorm.DB) *gorm.DB {
		q = where(q, "empresa_id", f.EmpresaID)
		q = where(q, "escolaridade_id", f.EscolaridadeID)
		q = where(q, "orgao_id", f.OrgaoID)
		q = where(q, "jornada_trabalho", f.JornadaTrabalho)
		q = where(q, "tipo_contratacao", f.TipoContratacao)
		q = where(q, "turno", f.Turno)
		return where(q, "status", f.Status)
	}
}

// where adds column = *value to q when value is set.
func where[T any](q *gorm.DB, column string, value *T) *gorm.DB {
	if value == nil {
		return q
	}
	return q.Where("? = ?", clause.Column{Name: column}, *value)
}

// empregoTargets lists the references of a posting that must exist.
func empregoTargets(in *jobs.EmpregoInput) []target {
	return []target{
		{field: "empresa_id", table: "empresas", ids: idOf(in.EmpresaID)},
		{field: "escolaridade_id", table: "escolaridades", ids: idOf(in.EscolaridadeID)},
		{field: "orgao_id", table: "orgaos", ids: idOf(in.OrgaoID)},
	}
}
