package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// likeEscaper makes client text literal inside a LIKE pattern.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// List implements catalog.Store.
func (s *Store) List(ctx context.Context, f catalog.Filter) (catalog.Page, error) {
	q, err := filtered(s.db.WithContext(ctx).Model(&servicoRow{}), f)
	if err != nil {
		return catalog.Page{}, err
	}
	q = q.Session(&gorm.Session{})
	var page catalog.Page
	if err := q.Count(&page.Total).Error; err != nil {
		return page, mapError(fmt.Errorf("count servicos: %w", err))
	}
	var rows []servicoRow
	err = q.Order("created_at DESC, id DESC").Limit(f.PerPage).Offset((f.Page - 1) * f.PerPage).Find(&rows).Error
	if err != nil {
		return page, mapError(fmt.Errorf("list servicos: %w", err))
	}
	page.Data = make([]catalog.Servico, len(rows))
	for i, r := range rows {
		page.Data[i] = *r.servico()
	}
	return page, nil
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
