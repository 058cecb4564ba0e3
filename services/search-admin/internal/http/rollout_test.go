package http_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/version"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// A running replica tells the others which search-schema versions its build
// defines, and stops saying so when it stops. An administrator who starts
// a re-index to a version some running replica does not define (during a
// rolling update, an older release's pod) gets a 409 naming it, not a
// catalog whose older pods answer 500 to every search and write.
func TestAReindexToAVersionAnOlderRunningReplicaLacksIsRefusedUntilItStops(t *testing.T) {
	t.Parallel()
	dsn, idp := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t)
	app := wireApp(t, dsn, idp, embedding.Hash{}, "search-admin-new/1")
	stop := app.runBackground(context.Background())

	type announced struct {
		Versions string
		Release  string
	}
	row := func(holder string) []announced {
		var rows []announced
		if err := app.db.Raw(`SELECT array_to_string(versions, ',') AS versions, release FROM search_replicas WHERE holder = ? AND expires_at > now()`, holder).Scan(&rows).Error; err != nil {
			t.Fatal(err)
		}
		return rows
	}
	for deadline := time.Now().Add(10 * time.Second); len(row("search-admin-new/1")) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the running replica never announced itself")
		}
	}
	if got := row("search-admin-new/1")[0]; got.Versions != strings.Join(catalog.DefaultRegistry().Versions(), ",") || got.Release != version.Version {
		t.Errorf("announced %+v, want versions %v of release %s", got, catalog.DefaultRegistry().Versions(), version.Version)
	}

	older := catalog.Replica{Holder: "search-admin-old/1", Release: "2026.11.20", Versions: []string{"v1"}}
	if err := app.store.Announce(context.Background(), older, time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, body := range []map[string]any{{"schema_version": "v2", "dry_run": true}, {"schema_version": "v2"}} {
		resp := app.do(http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", body)
		var p struct{ Detail string }
		_ = json.Unmarshal(resp.Body, &p)
		if resp.Status != http.StatusConflict || !strings.Contains(p.Detail, "search-admin-old/1 (release 2026.11.20)") {
			t.Errorf("start %v with an older replica running: %d %s, want 409 naming it", body, resp.Status, resp.Body)
		}
	}
	if err := app.store.Retire(context.Background(), older.Holder); err != nil {
		t.Fatal(err)
	}
	if resp := app.do(http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", map[string]any{"schema_version": "v2"}); resp.Status != http.StatusAccepted {
		t.Errorf("start once the older replica stopped: %d %s", resp.Status, resp.Body)
	}

	stop()
	if rows := row("search-admin-new/1"); len(rows) != 0 {
		t.Errorf("a stopped replica is still announced: %+v", rows)
	}
}
