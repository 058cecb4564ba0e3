// Package postgres stores the search catalog in PostgreSQL through GORM: the
// servicos table, one search document per Servico and schema version
// (tsvector plus float4[] embedding), and the current-version setting.
package postgres

import (
	"context"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// Store implements catalog.Store.
type Store struct {
	db *gorm.DB
}

var _ catalog.Store = (*Store)(nil)

// New returns a Store on db.
func New(db *gorm.DB) *Store { return &Store{db: db} }

// constraintFields names the request member behind each check constraint.
var constraintFields = pg.Fields{
	"servicos_nome_servico_length":      "nome_servico",
	"servicos_resumo_length":            "resumo",
	"servicos_orgao_gestor_items":       "orgao_gestor",
	"servicos_publico_especifico_items": "publico_especifico",
	"servicos_status_range":             "status",
}

func mapError(err error) error { return pg.MapError(err, constraintFields) }

// CurrentVersion implements catalog.Store.
func (s *Store) CurrentVersion(ctx context.Context) (string, error) {
	var version string
	if err := pg.Conn(ctx, s.db).Raw("SELECT current_version FROM search_settings").Row().Scan(&version); err != nil {
		return "", mapError(fmt.Errorf("read search_settings: %w", err))
	}
	return version, nil
}

// WriteVersions implements catalog.Store.
func (s *Store) WriteVersions(ctx context.Context) (catalog.WriteVersions, error) {
	v, err := readVersions(pg.Conn(ctx, s.db), "")
	return v, mapError(err)
}

// readVersions reads the versions writes index; with lock "FOR SHARE" it
// holds the settings row until the transaction ends, so that a re-index
// start, switch or rollback (which update it) waits for this write and every
// later write sees the versions they leave.
func readVersions(tx *gorm.DB, lock string) (catalog.WriteVersions, error) {
	var v catalog.WriteVersions
	err := tx.Raw(`SELECT current_version, COALESCE(target_version, ''), COALESCE(previous_version, '')
FROM search_settings `+lock).Row().Scan(&v.Current, &v.Target, &v.Previous)
	if err != nil {
		return v, fmt.Errorf("read search_settings: %w", err)
	}
	return v, nil
}

// indexIn writes the documents index builds for versions, which tx has
// locked before the Servico row (always in that order, so writers, the
// re-index runner and version switches cannot deadlock).
func indexIn(tx *gorm.DB, id string, versions catalog.WriteVersions, index catalog.Indexer) error {
	if index == nil {
		return nil
	}
	docs, err := index(versions)
	if err != nil {
		return err
	}
	return saveDocuments(tx, id, docs)
}

// Create implements catalog.Store.
func (s *Store) Create(ctx context.Context, sv *catalog.Servico, index catalog.Indexer) error {
	err := pg.Tx(ctx, s.db, func(tx *gorm.DB) error {
		versions, err := readVersions(tx, "FOR SHARE")
		if err != nil {
			return err
		}
		row := toRow(sv)
		if err := tx.Create(&row).Error; err != nil {
			return fmt.Errorf("insert servico: %w", err)
		}
		return indexIn(tx, sv.ID, versions, index)
	})
	return mapError(err)
}

// Get implements catalog.Store.
func (s *Store) Get(ctx context.Context, id string) (*catalog.Servico, error) {
	sv, err := get(pg.Conn(ctx, s.db), id)
	return sv, mapError(err)
}

const selectWithDocument = `
SELECT s.*, d.schema_version, d.search_content, d.embedding, d.embedding_pending
FROM servicos s
LEFT JOIN search_documents d
  ON d.servico_id = s.id AND d.schema_version = (SELECT current_version FROM search_settings)
WHERE s.id = ?`

func get(tx *gorm.DB, id string) (*catalog.Servico, error) {
	var row servicoWithDoc
	res := tx.Raw(selectWithDocument, id).Scan(&row)
	if res.Error != nil {
		return nil, fmt.Errorf("get servico: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return nil, problem.Errorf(problem.ENOTFOUND, "servico %s does not exist", id)
	}
	return row.servico(), nil
}

// Update implements catalog.Store.
func (s *Store) Update(ctx context.Context, id string, change func(*catalog.Servico), index catalog.Indexer) (*catalog.Servico, error) {
	var out *catalog.Servico
	err := pg.Tx(ctx, s.db, func(tx *gorm.DB) error {
		versions, err := readVersions(tx, "FOR SHARE")
		if err != nil {
			return err
		}
		var row servicoRow
		res := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id).Limit(1).Find(&row)
		if res.Error != nil {
			return fmt.Errorf("lock servico: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return problem.Errorf(problem.ENOTFOUND, "servico %s does not exist", id)
		}
		out = row.servico()
		change(out)
		next := toRow(out)
		if err := tx.Model(&servicoRow{ID: id}).Select("*").Omit("id").Updates(&next).Error; err != nil {
			return fmt.Errorf("update servico: %w", err)
		}
		return indexIn(tx, id, versions, index)
	})
	return out, mapError(err)
}

// Delete implements catalog.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	res := pg.Conn(ctx, s.db).Where("id = ?", id).Delete(&servicoRow{})
	if res.Error != nil {
		return mapError(fmt.Errorf("delete servico: %w", res.Error))
	}
	if res.RowsAffected == 0 {
		return problem.Errorf(problem.ENOTFOUND, "servico %s does not exist", id)
	}
	return nil
}
