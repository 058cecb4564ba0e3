package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

var _ catalog.SynonymStore = (*Store)(nil)

// synonymRow is a row of table search_synonyms (migration 00010); a
// multi-way rule has an empty root.
type synonymRow struct {
	ID         string `gorm:"primaryKey"`
	Root       string
	Synonyms   []string `gorm:"serializer:json"`
	Autor      string
	CreatedAt  int64 `gorm:"autoCreateTime:false"`
	LastUpdate int64
}

// TableName implements gorm's tabler.
func (synonymRow) TableName() string { return "search_synonyms" }

func (r synonymRow) synonym() catalog.Synonym {
	return catalog.Synonym{ID: r.ID, Root: r.Root, Synonyms: r.Synonyms, Autor: r.Autor, CreatedAt: r.CreatedAt, LastUpdate: r.LastUpdate}
}

func toSynonymRow(s *catalog.Synonym) synonymRow {
	return synonymRow{ID: s.ID, Root: s.Root, Synonyms: s.Synonyms, Autor: s.Autor, CreatedAt: s.CreatedAt, LastUpdate: s.LastUpdate}
}

// SearchSettings implements catalog.SearchStore.
func (s *Store) SearchSettings(ctx context.Context) (catalog.SearchSettings, error) {
	var out catalog.SearchSettings
	err := pg.Conn(ctx, s.db).Raw(`SELECT s.current_version, r.revision
FROM search_settings s CROSS JOIN search_synonyms_revision r`).Row().Scan(&out.Version, &out.SynonymsRevision)
	if err != nil {
		return out, mapError(fmt.Errorf("read search settings: %w", err))
	}
	return out, nil
}

// AllSynonyms implements catalog.SearchStore.
func (s *Store) AllSynonyms(ctx context.Context) ([]catalog.Synonym, error) {
	var rows []synonymRow
	if err := pg.Conn(ctx, s.db).Order("id").Find(&rows).Error; err != nil {
		return nil, mapError(fmt.Errorf("load synonyms: %w", err))
	}
	out := make([]catalog.Synonym, len(rows))
	for i, r := range rows {
		out[i] = r.synonym()
	}
	return out, nil
}

// CreateSynonym implements catalog.SynonymStore.
func (s *Store) CreateSynonym(ctx context.Context, sy *catalog.Synonym) error {
	row := toSynonymRow(sy)
	if err := pg.Conn(ctx, s.db).Create(&row).Error; err != nil {
		return mapError(fmt.Errorf("insert synonym: %w", err))
	}
	return nil
}

// GetSynonym implements catalog.SynonymStore.
func (s *Store) GetSynonym(ctx context.Context, id string) (*catalog.Synonym, error) {
	var row synonymRow
	res := pg.Conn(ctx, s.db).Where("id = ?", id).Limit(1).Find(&row)
	if res.Error != nil {
		return nil, mapError(fmt.Errorf("get synonym: %w", res.Error))
	}
	if res.RowsAffected == 0 {
		return nil, problem.Errorf(problem.ENOTFOUND, "synonym %s does not exist", id)
	}
	out := row.synonym()
	return &out, nil
}

// ListSynonyms implements catalog.SynonymStore.
func (s *Store) ListSynonyms(ctx context.Context, f catalog.SynonymFilter) (catalog.SynonymPage, error) {
	rows, total, err := readPage[synonymRow](ctx, s.db, func(q *gorm.DB) (*gorm.DB, error) {
		if f.Text != "" {
			q = q.Where(`search_unaccent(lower(root || ' ' || synonyms::text)) LIKE '%' || search_unaccent(lower(?)) || '%'`,
				likeEscaper.Replace(f.Text))
		}
		return q, nil
	}, "created_at DESC, id DESC", f.Page, f.PerPage)
	if err != nil {
		return catalog.SynonymPage{}, mapError(fmt.Errorf("list synonyms: %w", err))
	}
	page := catalog.SynonymPage{Total: total, Data: make([]catalog.Synonym, len(rows))}
	for i, r := range rows {
		page.Data[i] = r.synonym()
	}
	return page, nil
}

// ReplaceSynonym implements catalog.SynonymStore.
func (s *Store) ReplaceSynonym(ctx context.Context, sy *catalog.Synonym) (*catalog.Synonym, error) {
	terms, err := json.Marshal(sy.Synonyms)
	if err != nil {
		return nil, fmt.Errorf("encode synonyms: %w", err)
	}
	var row synonymRow
	res := pg.Conn(ctx, s.db).Raw(`UPDATE search_synonyms SET root = ?, synonyms = CAST(? AS jsonb), last_update = ?
WHERE id = ? RETURNING *`, sy.Root, string(terms), sy.LastUpdate, sy.ID).Scan(&row)
	if res.Error != nil {
		return nil, mapError(fmt.Errorf("replace synonym: %w", res.Error))
	}
	if res.RowsAffected == 0 {
		return nil, problem.Errorf(problem.ENOTFOUND, "synonym %s does not exist", sy.ID)
	}
	out := row.synonym()
	return &out, nil
}

// DeleteSynonym implements catalog.SynonymStore.
func (s *Store) DeleteSynonym(ctx context.Context, id string) error {
	res := pg.Conn(ctx, s.db).Where("id = ?", id).Delete(&synonymRow{})
	if res.Error != nil {
		return mapError(fmt.Errorf("delete synonym: %w", res.Error))
	}
	if res.RowsAffected == 0 {
		return problem.Errorf(problem.ENOTFOUND, "synonym %s does not exist", id)
	}
	return nil
}
