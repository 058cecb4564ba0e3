package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
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
    COALESCE(cursor_id::text, '') AS cursor, lease_generation AS generation`

// errRunning answers a start while a re-index runs.
var errRunning = problem.Errorf(problem.ECONFLICT, "a re-index is already running; wait for it or roll it back")

// BeginReindex implements catalog.ReindexStore. Locking the settings
// row waits for in-flight writes; every later write indexes the target.
func (s *Store) BeginReindex(ctx context.Context, m *catalog.Reindex, lease time.Duration) error {
	err := pg.Tx(ctx, s.db, func(tx *gorm.DB) error {
		if err := boundAdminTx(tx); err != nil {
			return err
		}
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
		if err := undefinedByRunning(tx, m.SchemaVersion); err != nil {
			return err
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
	return r, mapError(undefinedByRunning(pg.Conn(ctx, s.db), target))
}

// claimReindex takes a running re-index whose lease is this holder's or has
// expired, in a new lease generation. SKIP LOCKED: a run whose row another
// session holds (a runner stopped inside a statement, an admin transaction)
// is not waited for; the next poll tries again.
const claimReindex = `
UPDATE search_migrations r SET
    takeovers = r.takeovers + CASE WHEN r.lease_holder IS DISTINCT FROM @holder THEN 1 ELSE 0 END,
    lease_holder = @holder, lease_generation = r.lease_generation + 1,
    lease_expires_at = now() + make_interval(secs => @lease), updated_at = now()
FROM (SELECT id AS claim_id FROM search_migrations
      WHERE state = 'running' AND target_version IN @known AND (lease_holder = @holder OR lease_expires_at < now())
      FOR UPDATE SKIP LOCKED) c
WHERE r.id = c.claim_id
RETURNING ` + reindexColumns

// ClaimReindex implements catalog.ReindexStore.
func (s *Store) ClaimReindex(ctx context.Context, holder string, lease time.Duration, known []string) (*catalog.Reindex, error) {
	var m catalog.Reindex
	res := pg.Conn(ctx, s.db).Raw(claimReindex, map[string]any{"holder": holder, "lease": lease.Seconds(), "known": known}).Scan(&m)
	if res.Error != nil {
		return nil, mapError(fmt.Errorf("claim re-index: %w", res.Error))
	}
	if res.RowsAffected == 0 {
		return nil, nil
	}
	return &m, nil
}

// heldBy matches the row of a run still held under a lease.
const heldBy = `id = @id AND lease_holder = @holder AND lease_generation = @generation AND state = 'running'`

// leaseArgs are the named arguments of heldBy.
func leaseArgs(l catalog.Lease, args map[string]any) map[string]any {
	args["id"], args["holder"], args["generation"] = l.ReindexID, l.Holder, l.Generation
	return args
}

// Heartbeat implements catalog.ReindexStore.
func (s *Store) Heartbeat(ctx context.Context, l catalog.Lease, lease time.Duration) error {
	res := pg.Conn(ctx, s.db).Exec(`UPDATE search_migrations SET lease_expires_at = now() + make_interval(secs => @lease)
WHERE `+heldBy, leaseArgs(l, map[string]any{"lease": lease.Seconds()}))
	if res.Error != nil {
		return mapError(fmt.Errorf("re-index heartbeat: %w", res.Error))
	}
	if res.RowsAffected == 0 {
		return catalog.ErrLeaseLost
	}
	return nil
}

// EndLeases implements catalog.ReindexStore.
func (s *Store) EndLeases(ctx context.Context, holder string) (int64, error) {
	res := pg.Conn(ctx, s.db).Exec(`UPDATE search_migrations SET lease_expires_at = now()
WHERE lease_holder = ? AND state = 'running' AND lease_expires_at > now()`, holder)
	if res.Error != nil {
		return 0, mapError(fmt.Errorf("end re-index leases: %w", res.Error))
	}
	return res.RowsAffected, nil
}

// switchVersion is SwitchVersion in one statement: it locks the settings
// row (waiting for in-flight writes, at most lockWait), then the run's row
// if still held under the lease, counts the Servicos without a target
// document and, when there are none, completes the run, makes the target
// current and tells every replica to reload its vectors. Nothing stays
// locked after it, whatever happens to the client.
const switchVersion = `
WITH settings AS (
    SELECT target_version FROM search_settings FOR UPDATE
), lease AS (
    SELECT r.id FROM search_migrations r, settings WHERE r.` + heldBy + ` FOR UPDATE OF r
), missing AS (
    SELECT count(*) AS n FROM servicos s, settings WHERE NOT EXISTS
        (SELECT FROM search_documents d WHERE d.servico_id = s.id AND d.schema_version = settings.target_version)
), done AS (
    UPDATE search_migrations r SET state = 'completed', finished_at = now(), updated_at = now(),
        lease_holder = NULL, lease_expires_at = NULL,
        total = (SELECT count(*) FROM servicos), processed = (SELECT count(*) FROM servicos)
    FROM lease, settings, missing
    WHERE r.id = lease.id AND settings.target_version IS NOT NULL AND missing.n = 0
    RETURNING r.id
), switched AS (
    UPDATE search_settings SET previous_version = current_version, current_version = target_version,
        target_version = NULL, revision = revision + 1, updated_at = now()
    WHERE EXISTS (SELECT FROM done)
    RETURNING current_version
), notified AS (
    SELECT pg_notify(@channel, @all) FROM switched
)
SELECT EXISTS (SELECT FROM lease), (SELECT n FROM missing), (SELECT count(*) FROM notified)`

// SwitchVersion implements catalog.ReindexStore.
func (s *Store) SwitchVersion(ctx context.Context, l catalog.Lease) (int64, error) {
	var held bool
	var missing, switched int64
	err := withLockWait(ctx, s.db, func(conn *pgx.Conn) error {
		args := leaseArgs(l, map[string]any{"channel": ChangesChannel, "all": catalog.AllChanged})
		return conn.QueryRow(ctx, switchVersion, pgx.NamedArgs(args)).Scan(&held, &missing, &switched)
	})
	switch {
	case err != nil:
		return 0, mapError(fmt.Errorf("switch version: %w", err))
	case !held:
		return 0, catalog.ErrLeaseLost
	case switched == 0 && missing == 0:
		return 0, catalog.ErrLeaseLost // the target was cleared: a rollback cancelled the run
	}
	return missing, nil
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
