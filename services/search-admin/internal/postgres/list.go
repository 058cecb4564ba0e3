package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// likeEscaper makes client text literal inside a LIKE pattern.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// List implements catalog.Store.
func (s *Store) List(ctx context.Context, f catalog.Filter) (catalog.Page, error) {
	rows, total, err := readPage[servicoRow](ctx, s.db, func(q *gorm.DB) (*gorm.DB, error) { return filtered(q, f) },
		"created_at DESC, id DESC", f.Page, f.PerPage)
	if err != nil {
		return catalog.Page{}, mapError(fmt.Errorf("list servicos: %w", err))
	}
	page := catalog.Page{Total: total, Data: make([]catalog.Servico, len(rows))}
	for i, r := range rows {
		page.Data[i] = *r.servico()
	}
	return page, nil
}

// readPage counts the rows of R that filter selects and reads page number
// page of perPage of them in order (pg.CountPage), in one snapshot
// (pg.Snapshot), so that the count is the count of what the pages hold.
func readPage[R any](ctx context.Context, db *gorm.DB, filter func(*gorm.DB) (*gorm.DB, error), order string, page, perPage int) ([]R, int64, error) {
	var rows []R
	var total int64
	err := pg.Tx(ctx, db, func(tx *gorm.DB) error {
		rows = nil
		q, err := filter(tx.Model(new(R)))
		if err != nil {
			return err
		}
		total, err = pg.CountPage(q, order, perPage, (page-1)*perPage, &rows)
		return err
	}, pg.Snapshot)
	return rows, total, err
}

// filtered adds the conditions of f to q.
func filtered(q *gorm.DB, f catalog.Filter) (*gorm.DB, error) {
	if f.Status != nil {
		q = q.Where("status = ?", *f.Status)
	}
	if f.TemaGeral != "" {
		q = q.Where("tema_geral = ?", f.TemaGeral)
	}
	if f.OrgaoGestor != "" {
		one, err := json.Marshal([]string{f.OrgaoGestor})
		if err != nil {
			return nil, fmt.Errorf("encode orgao_gestor filter: %w", err)
		}
		q = q.Where("orgao_gestor @> ?::jsonb", string(one))
	}
	if f.AwaitingApproval != nil {
		q = q.Where("COALESCE(awaiting_approval, false) = ?", *f.AwaitingApproval)
	}
	if f.IsFree != nil {
		q = q.Where("is_free = ?", *f.IsFree)
	}
	if f.Text != "" {
		q = q.Where(`search_text LIKE '%' || search_unaccent(lower(?)) || '%'`,
			likeEscaper.Replace(f.Text))
	}
	return q, nil
}
