package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// Announce implements catalog.ReindexStore. The versions go as one string
// (GORM would send a slice as a row of values); a version is "v" and
// digits. Rows of replicas gone for a day without retiring (killed pods)
// are dropped on the way.
func (s *Store) Announce(ctx context.Context, r catalog.Replica, ttl time.Duration) error {
	err := pg.Conn(ctx, s.db).Exec(`WITH gone AS (DELETE FROM search_replicas WHERE expires_at < now() - interval '1 day')
INSERT INTO search_replicas (holder, versions, release, expires_at) VALUES (@holder, string_to_array(@versions, ','), @release, now() + make_interval(secs => @ttl))
ON CONFLICT (holder) DO UPDATE SET versions = excluded.versions, release = excluded.release, expires_at = excluded.expires_at`,
		map[string]any{"holder": r.Holder, "versions": strings.Join(r.Versions, ","), "release": r.Release, "ttl": ttl.Seconds()}).Error
	return mapError(err)
}

// Retire implements catalog.ReindexStore.
func (s *Store) Retire(ctx context.Context, holder string) error {
	return mapError(pg.Conn(ctx, s.db).Exec(`DELETE FROM search_replicas WHERE holder = ?`, holder).Error)
}

// undefinedByRunning is ECONFLICT when a running replica does not define
// version: a re-index to it, or a rollback to it, would make that replica
// answer 500 to every search and write (an older release during a rolling
// update, or one rolled back to).
func undefinedByRunning(tx *gorm.DB, version string) error {
	var rows []struct{ Holder, Release string }
	err := tx.Raw(`SELECT holder, release FROM search_replicas WHERE expires_at > now() AND NOT (? = ANY (versions))
ORDER BY holder LIMIT 4`, version).Scan(&rows).Error
	if err != nil {
		return fmt.Errorf("read running replicas: %w", err)
	}
	if len(rows) == 0 {
		return nil
	}
	names := make([]string, 0, 3)
	for _, r := range rows[:min(len(rows), 3)] {
		names = append(names, fmt.Sprintf("%s (release %s)", r.Holder, r.Release))
	}
	if len(rows) > 3 {
		names = append(names, "others")
	}
	return problem.Errorf(problem.ECONFLICT,
		"schema version %s is not defined by the running replicas %s: finish the rollout of a release that defines it first",
		version, strings.Join(names, ", "))
}
