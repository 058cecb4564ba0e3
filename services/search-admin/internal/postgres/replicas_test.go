package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// During a rolling update the previous release's replicas serve beside
// the new ones, and after a rollback only they do. A replica whose build
// does not define the target or current search-schema version answers 500
// to every search and write, so a re-index to such a version, or a
// rollback to one, is refused while such a replica runs: it says so in its
// announcement, until the announcement expires or it retires.
func TestAVersionARunningReplicaDoesNotDefineIsNeverStartedNorRolledBackTo(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	ctx := context.Background()
	older := catalog.Replica{Holder: "search-admin-7d9f/1", Release: "2026.11.20", Versions: []string{"v1"}}
	announce := func(r catalog.Replica, ttl time.Duration) {
		t.Helper()
		if err := st.Announce(ctx, r, ttl); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(what string, err error) {
		t.Helper()
		if !problem.Is(err, problem.ECONFLICT) || !strings.Contains(err.Error(), older.Holder+" (release "+older.Release+")") {
			t.Errorf("%s with %s running: %v, want a conflict naming it", what, older.Holder, err)
		}
	}
	begin := func(target string) (*catalog.Reindex, error) {
		id, _ := uuid.NewV7()
		ri := &catalog.Reindex{ID: id.String(), SchemaVersion: target, StartedBy: "tester", LeaseHolder: "new"}
		return ri, st.BeginReindex(ctx, ri, time.Minute)
	}
	announce(catalog.Replica{Holder: "new", Release: "dev", Versions: known}, time.Minute)
	announce(older, time.Minute)

	_, err := st.DryRun(ctx, "v2")
	refused("a dry run to v2", err)
	_, err = begin("v2")
	refused("a re-index to v2", err)
	if s, err := st.ReindexStatus(ctx); err != nil || s.TargetVersion != nil || s.Reindex != nil {
		t.Fatalf("a refused start changed the status: %+v, %v", s, err)
	}

	// A replica that stops retires; one that dies is forgotten when its
	// announcement expires.
	if err := st.Retire(ctx, older.Holder); err != nil {
		t.Fatal(err)
	}
	announce(catalog.Replica{Holder: "killed/1", Release: "2026.11.20", Versions: []string{"v1"}}, time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	ri, err := begin("v2")
	if err != nil {
		t.Fatalf("a re-index to v2 once no running replica lacks it: %v", err)
	}
	claimed := mustClaim(t, st, "new", time.Minute)
	if missing, err := st.SwitchVersion(ctx, claimed.Lease()); err != nil || missing != 0 {
		t.Fatalf("switch of %s: %d missing, %v", ri.ID, missing, err)
	}

	// v2 is current and v3 the previous version: a rollback would switch
	// back to v3, which the older replica does not define either.
	announce(catalog.Replica{Holder: older.Holder, Release: older.Release, Versions: []string{"v1", "v2"}}, time.Minute)
	refused("a rollback to v3", st.Rollback(ctx))
	if s, err := st.ReindexStatus(ctx); err != nil || s.CurrentVersion != "v2" {
		t.Fatalf("a refused rollback changed the status: %+v, %v", s, err)
	}
	announce(catalog.Replica{Holder: older.Holder, Release: "dev", Versions: known}, time.Minute) // rolled forward
	if err := st.Rollback(ctx); err != nil {
		t.Fatalf("a rollback once every running replica defines v3: %v", err)
	}
}
