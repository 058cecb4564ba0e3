package postgres

import (
	"context"
	"fmt"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

var _ catalog.BacklogStore = (*Store)(nil)

// backlog reads both parts of the backlog in one statement: the pending
// documents through the partial index search_documents_pending_idx (the
// cost grows with the backlog, not with the catalog) and the running
// re-index through search_migrations_one_running.
const backlog = `
SELECT 'pending' AS kind, schema_version, count(*) AS n, 0 AS total, 0::float8 AS at
FROM search_documents WHERE embedding_pending GROUP BY schema_version
UNION ALL
SELECT 'reindex', target_version, processed, total, extract(epoch FROM progressed_at)::float8
FROM search_migrations WHERE state = 'running'`

// Backlog implements catalog.BacklogStore.
func (s *Store) Backlog(ctx context.Context) (catalog.Backlog, error) {
	var rows []struct {
		Kind, SchemaVersion string
		N, Total            int64
		At                  float64
	}
	b := catalog.Backlog{Pending: map[string]int64{}}
	if err := pg.Conn(ctx, s.db).Raw(backlog).Scan(&rows).Error; err != nil {
		return b, mapError(fmt.Errorf("read the backlog: %w", err))
	}
	for _, r := range rows {
		if r.Kind == "pending" {
			b.Pending[r.SchemaVersion] = r.N
			continue
		}
		b.Reindex = &catalog.ReindexProgress{SchemaVersion: r.SchemaVersion, Processed: r.N, Total: r.Total, ProgressedAt: r.At}
	}
	return b, nil
}
