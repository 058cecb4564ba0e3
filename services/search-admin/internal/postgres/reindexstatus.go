package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// Rollback implements catalog.ReindexStore. A running re-index is
// cancelled (search never left the current version); otherwise search goes
// back to the previous version, whose documents every write kept fresh.
func (s *Store) Rollback(ctx context.Context) error {
	err := pg.Tx(ctx, s.db, func(tx *gorm.DB) error {
		if err := boundAdminTx(tx); err != nil {
			return err
		}
		var previous *string
		if err := tx.Raw(`SELECT previous_version FROM search_settings FOR UPDATE`).Row().Scan(&previous); err != nil {
			return fmt.Errorf("lock search_settings: %w", err)
		}
		res := tx.Exec(`UPDATE search_migrations SET state = 'cancelled', finished_at = now(), updated_at = now(),
    lease_holder = NULL, lease_expires_at = NULL WHERE state = 'running'`)
		if res.Error != nil {
			return fmt.Errorf("cancel re-index: %w", res.Error)
		}
		if res.RowsAffected > 0 {
			return tx.Exec(`UPDATE search_settings SET target_version = NULL, revision = revision + 1, updated_at = now()`).Error
		}
		if previous == nil {
			return problem.Errorf(problem.ECONFLICT, "nothing to roll back: no re-index is running and no previous version is kept")
		}
		if err := undefinedByRunning(tx, *previous); err != nil {
			return err
		}
		err := tx.Exec(`UPDATE search_migrations SET state = 'rolled_back', rolled_back_at = now(), updated_at = now()
WHERE id = (SELECT id FROM search_migrations WHERE state = 'completed' ORDER BY finished_at DESC, id DESC LIMIT 1)`).Error
		if err != nil {
			return fmt.Errorf("mark re-index rolled back: %w", err)
		}
		return setVersions(tx, `current_version = previous_version, previous_version = NULL`)
	})
	return mapError(err)
}

// ReindexStatus implements catalog.ReindexStore, reading the versions
// and the latest re-index in one snapshot so they always agree.
func (s *Store) ReindexStatus(ctx context.Context) (catalog.ReindexStatus, error) {
	var st catalog.ReindexStatus
	err := pg.Tx(ctx, s.db, func(tx *gorm.DB) error {
		err := tx.Raw(`SELECT current_version, previous_version, target_version FROM search_settings`).Row().
			Scan(&st.CurrentVersion, &st.PreviousVersion, &st.TargetVersion)
		if err != nil {
			return fmt.Errorf("read search_settings: %w", err)
		}
		var latest []catalog.Reindex
		if err := tx.Raw(`SELECT ` + reindexColumns + ` FROM search_migrations ORDER BY started_at DESC, id DESC LIMIT 1`).Scan(&latest).Error; err != nil {
			return fmt.Errorf("read latest re-index: %w", err)
		}
		if len(latest) == 1 {
			st.Reindex = &latest[0]
		}
		return nil
	}, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	return st, mapError(err)
}

// ReindexHistory implements catalog.ReindexStore.
func (s *Store) ReindexHistory(ctx context.Context, page, perPage int) ([]catalog.Reindex, int64, error) {
	db := pg.Conn(ctx, s.db)
	var total int64
	if err := db.Raw(`SELECT count(*) FROM search_migrations`).Row().Scan(&total); err != nil {
		return nil, 0, mapError(fmt.Errorf("count re-indexes: %w", err))
	}
	out := []catalog.Reindex{}
	err := db.Raw(`SELECT `+reindexColumns+` FROM search_migrations ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?`,
		perPage, (page-1)*perPage).Scan(&out).Error
	if err != nil {
		return nil, 0, mapError(fmt.Errorf("list re-indexes: %w", err))
	}
	return out, total, nil
}
