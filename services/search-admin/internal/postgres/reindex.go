package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

var _ catalog.ReindexStore = (*Store)(nil)

// reindexColumns reads a search_migrations row as a catalog.Reindex,
// timestamps in Unix seconds.
const reindexColumns = `id::text AS id, from_version, target_version AS schema_version, state, started_by,
    processed, total, COALESCE(lease_holder, '') AS lease_holder,
    extract(epoch FROM lease_expires_at)::bigint AS lease_expires_at, takeovers,
    extract(epoch FROM started_at)::bigint AS started_at, extract(epoch FROM updated_at)::bigint AS updated_at,
    extract(epoch FROM finished_at)::bigint AS finished_at, extract(epoch FROM rolled_back_at)::bigint AS rolled_back_at,
    COALESCE(cursor_id::text, '') AS cursor`

// errRunning answers a start while a re-index runs.
var errRunning = problem.Errorf(problem.ECONFLICT, "a re-index is already running; wait for it or roll it back")

// BeginReindex implements catalog.ReindexStore. Locking the settings
// row waits for in-flight writes; every later write indexes the target.
func (s *Store) BeginReindex(ctx context.Context, m *catalog.Reindex, lease time.Duration) error {
	err := pg.Tx(ctx, s.db, func(tx *gorm.DB) error {
		var running bool
		err := tx.Raw(`SELECT current_version, EXISTS (SELECT 1 FROM search_migrations WHERE state = 'running')
FROM search_settings FOR UPDATE`).Row().Scan(&m.FromVersion, &running)
		switch {
		case err != nil:
			return fmt.Errorf("lock search_settings: %w", err)
		case running:
			return errRunning
		case m.FromVersion == m.SchemaVersion:
			return problem.Errorf(problem.ECONFLICT, "schema version %s is already the current one", m.SchemaVersion)
		}
		if err := tx.Exec(`DELETE FROM search_documents WHERE schema_version = ?`, m.SchemaVersion).Error; err != nil {
			return fmt.Errorf("drop stale %s documents: %w", m.SchemaVersion, err)
		}
		err = tx.Raw(`INSERT INTO search_migrations (id, from_version, target_version, state, started_by, total, lease_holder, lease_expires_at)
VALUES (@id, @from, @target, 'running', @by, (SELECT count(*) FROM servicos), @holder, now() + make_interval(secs => @lease))
RETURNING `+reindexColumns, map[string]any{
			"id": m.ID, "from": m.FromVersion, "target": m.SchemaVersion, "by": m.StartedBy, "holder": m.LeaseHolder, "lease": lease.Seconds(),
		}).Scan(m).Error
		if err != nil {
			return fmt.Errorf("insert re-index: %w", err)
		}
		return tx.Exec(`UPDATE search_settings SET target_version = ?, previous_version = NULL, revision = revision + 1, updated_at = now()`,
			m.SchemaVersion).Error
	})
	return mapError(err)
}

// DryRun implements catalog.ReindexStore.
func (s *Store) DryRun(ctx context.Context, target string) (catalog.DryRunReport, error) {
	r := catalog.DryRunReport{DryRun: true, SchemaVersion: target}
	var running bool
	err := pg.Conn(ctx, s.db).Raw(`SELECT current_version, EXISTS (SELECT 1 FROM search_migrations WHERE state = 'running'),
    (SELECT count(*) FROM servicos), (SELECT count(*) FROM servicos WHERE status = 1),
    (SELECT count(*) FROM search_documents WHERE schema_version = ?)
FROM search_settings`, target).Row().Scan(&r.FromVersion, &running, &r.Servicos, &r.Published, &r.ExistingDocuments)
	switch {
	case err != nil:
		return r, mapError(fmt.Errorf("count for dry run: %w", err))
	case running:
		return r, errRunning
	case r.FromVersion == target:
		return r, problem.Errorf(problem.ECONFLICT, "schema version %s is already the current one", target)
	}
	return r, nil
}

// ClaimReindex implements catalog.ReindexStore.
func (s *Store) ClaimReindex(ctx context.Context, holder string, lease time.Duration, known []string) (*catalog.Reindex, error) {
	var m catalog.Reindex
	res := pg.Conn(ctx, s.db).Raw(`UPDATE search_migrations SET
    takeovers = takeovers + CASE WHEN lease_holder IS DISTINCT FROM @holder THEN 1 ELSE 0 END,
    lease_holder = @holder, lease_expires_at = now() + make_interval(secs => @lease), updated_at = now()
WHERE state = 'running' AND target_version IN @known AND (lease_holder = @holder OR lease_expires_at < now())
RETURNING `+reindexColumns, map[string]any{"holder": holder, "lease": lease.Seconds(), "known": known}).Scan(&m)
	if res.Error != nil {
		return nil, mapError(fmt.Errorf("claim re-index: %w", res.Error))
	}
	if res.RowsAffected == 0 {
		return nil, nil
	}
	return &m, nil
}

// Heartbeat implements catalog.ReindexStore.
func (s *Store) Heartbeat(ctx context.Context, id, holder string, lease time.Duration) error {
	res := pg.Conn(ctx, s.db).Exec(`UPDATE search_migrations SET lease_expires_at = now() + make_interval(secs => ?)
WHERE id = ? AND lease_holder = ? AND state = 'running'`, lease.Seconds(), id, holder)
	if res.Error != nil {
		return mapError(fmt.Errorf("re-index heartbeat: %w", res.Error))
	}
	if res.RowsAffected == 0 {
		return catalog.ErrLeaseLost
	}
	return nil
}

// errMissing aborts a switch that found Servicos without a target document.
type errMissing struct{ n int64 }

func (e errMissing) Error() string { return fmt.Sprintf("%d servicos lack a target document", e.n) }

// SwitchVersion implements catalog.ReindexStore: one transaction locks the
// settings row (waiting for in-flight writes), completes the re-index if
// holder still holds it, checks that every Servico has a target document
// and makes the target current.
func (s *Store) SwitchVersion(ctx context.Context, id, holder string) (int64, error) {
	err := pg.Tx(ctx, s.db, func(tx *gorm.DB) error {
		var target *string
		if err := tx.Raw(`SELECT target_version FROM search_settings FOR UPDATE`).Row().Scan(&target); err != nil {
			return fmt.Errorf("lock search_settings: %w", err)
		}
		res := tx.Exec(`UPDATE search_migrations SET state = 'completed', finished_at = now(), updated_at = now(),
    lease_holder = NULL, lease_expires_at = NULL, total = (SELECT count(*) FROM servicos)
WHERE id = ? AND lease_holder = ? AND state = 'running'`, id, holder)
		if res.Error != nil {
			return fmt.Errorf("complete re-index: %w", res.Error)
		}
		if res.RowsAffected == 0 || target == nil {
			return catalog.ErrLeaseLost
		}
		var missing int64
		if err := tx.Raw(`SELECT count(*) FROM servicos s WHERE NOT EXISTS
    (SELECT 1 FROM search_documents d WHERE d.servico_id = s.id AND d.schema_version = ?)`, *target).Row().Scan(&missing); err != nil {
			return fmt.Errorf("count missing documents: %w", err)
		}
		if missing > 0 {
			return errMissing{missing}
		}
		return setVersions(tx, `previous_version = current_version, current_version = target_version, target_version = NULL`)
	})
	if e, ok := errors.AsType[errMissing](err); ok {
		return e.n, nil
	}
	if errors.Is(err, catalog.ErrLeaseLost) {
		return 0, err
	}
	return 0, mapError(err)
}

// setVersions updates the versions of the settings row and tells every
// replica to reload its vectors when the transaction commits.
func setVersions(tx *gorm.DB, assignments string) error {
	if err := tx.Exec(`UPDATE search_settings SET ` + assignments + `, revision = revision + 1, updated_at = now()`).Error; err != nil {
		return fmt.Errorf("switch versions: %w", err)
	}
	if err := tx.Exec(`SELECT pg_notify(?, ?)`, ChangesChannel, catalog.AllChanged).Error; err != nil {
		return fmt.Errorf("notify version switch: %w", err)
	}
	return nil
}
