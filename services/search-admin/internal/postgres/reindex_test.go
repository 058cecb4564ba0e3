package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/postgres"
)

var known = catalog.DefaultRegistry().Versions()

// mustBegin starts a re-index to v1 held by holder for lease.
func mustBegin(t *testing.T, st *postgres.Store, holder string, lease time.Duration) *catalog.Reindex {
	t.Helper()
	id, _ := uuid.NewV7()
	ri := &catalog.Reindex{ID: id.String(), SchemaVersion: "v1", StartedBy: "tester", LeaseHolder: holder}
	if err := st.BeginReindex(context.Background(), ri, lease); err != nil {
		t.Fatal(err)
	}
	return ri
}

// mustClaim claims the running re-index for holder, failing when there is none.
func mustClaim(t *testing.T, st *postgres.Store, holder string, lease time.Duration) *catalog.Reindex {
	t.Helper()
	ri, err := st.ClaimReindex(context.Background(), holder, lease, known)
	if err != nil || ri == nil {
		t.Fatalf("claim for %s: %+v, %v", holder, ri, err)
	}
	return ri
}

// batchOf reads up to n Servicos after cursor and builds their v1 documents.
func batchOf(t *testing.T, st *postgres.Store, after string, n int) ([]catalog.BatchDocument, string) {
	t.Helper()
	svs, seqs, err := st.ReindexBatch(context.Background(), after, n)
	if err != nil || len(svs) == 0 {
		t.Fatalf("read batch after %q: %d servicos, %v", after, len(svs), err)
	}
	docs := make([]catalog.BatchDocument, len(svs))
	for i := range svs {
		doc := catalog.SchemaV1.Document(&svs[i])
		doc.Embedding, doc.Model = []float32{0.6, -0.8, float32(i)}, "test/model"
		docs[i] = catalog.BatchDocument{ServicoID: svs[i].ID, Seq: seqs[i], Doc: doc}
	}
	return docs, svs[len(svs)-1].ID
}

func TestATakeoverNeverWaitsForARunWhoseRowAStoppedClientHolds(t *testing.T) {
	t.Parallel()
	st, db := newStore(t)
	ri := mustBegin(t, st, "stopped", time.Millisecond)
	time.Sleep(20 * time.Millisecond) // the stopped holder's lease has expired

	// A client stopped inside a transaction that locked the run's row, as
	// a runner stopped inside its batch transaction once did.
	stopped := db.Begin()
	defer stopped.Rollback()
	if err := stopped.Exec(`SELECT 1 FROM search_migrations WHERE id = ? FOR UPDATE`, ri.ID).Error; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	got, err := st.ClaimReindex(ctx, "healthy", time.Minute, known)
	if err != nil || got != nil {
		t.Fatalf("claim while the row is held = %+v, %v after %v; want none at once, for the next poll", got, err, time.Since(start))
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("the claim waited %v for the stopped client", waited)
	}
	if err := stopped.Rollback().Error; err != nil {
		t.Fatal(err)
	}
	got = mustClaim(t, st, "healthy", time.Minute)
	if got.LeaseHolder != "healthy" || got.Takeovers != 1 || got.Generation != 1 {
		t.Errorf("after the stopped client let go: %+v, want healthy's claim, one takeover, generation 1", got)
	}
}

func TestALateHolderIsFencedOffByTheLeaseGeneration(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, successor string }{
		{"another replica took the run over", "healthy"},
		{"the same replica claimed it again", "replica-a"},
	} {
		t.Run("after "+tt.name, func(t *testing.T) {
			t.Parallel()
			st, db := newStore(t)
			for i := range 6 {
				mustCreate(t, st, "Servico "+string(rune('A'+i)), false, nil)
			}
			ctx := context.Background()
			mustBegin(t, st, "replica-a", time.Minute)
			late := mustClaim(t, st, "replica-a", 50*time.Millisecond)
			time.Sleep(100 * time.Millisecond) // the late holder stalls past its lease
			next := mustClaim(t, st, tt.successor, time.Minute)
			if next.Generation != late.Generation+1 {
				t.Fatalf("generation %d after %d, want one more", next.Generation, late.Generation)
			}

			docs, cursor := batchOf(t, st, "", 3)
			if err := st.Heartbeat(ctx, late.Lease(), time.Minute); !errors.Is(err, catalog.ErrLeaseLost) {
				t.Errorf("late heartbeat = %v, want ErrLeaseLost", err)
			}
			if err := st.IndexBatch(ctx, catalog.Progress{Lease: late.Lease(), Cursor: cursor}, docs, time.Minute); !errors.Is(err, catalog.ErrLeaseLost) {
				t.Errorf("late batch = %v, want ErrLeaseLost", err)
			}
			var written int64
			if err := db.Raw(`SELECT count(*) FROM search_documents WHERE schema_version = 'v1'`).Row().Scan(&written); err != nil || written != 0 {
				t.Errorf("the late batch wrote %d documents (%v)", written, err)
			}
			if _, err := st.SwitchVersion(ctx, late.Lease()); !errors.Is(err, catalog.ErrLeaseLost) {
				t.Errorf("late switch = %v, want ErrLeaseLost", err)
			}

			if err := st.IndexBatch(ctx, catalog.Progress{Lease: next.Lease(), Cursor: cursor}, docs, time.Minute); err != nil {
				t.Fatalf("the holder's batch: %v", err)
			}
			rest, last := batchOf(t, st, cursor, 10)
			if err := st.IndexBatch(ctx, catalog.Progress{Lease: next.Lease(), Cursor: last}, rest, time.Minute); err != nil {
				t.Fatalf("the holder's second batch: %v", err)
			}
			if missing, err := st.SwitchVersion(ctx, next.Lease()); err != nil || missing != 0 {
				t.Fatalf("the holder's switch: %d missing, %v", missing, err)
			}
			status, err := st.ReindexStatus(ctx)
			if err != nil || status.CurrentVersion != "v1" || status.Reindex.State != catalog.ReindexCompleted {
				t.Errorf("after the holder's switch: %+v, %v", status, err)
			}
		})
	}
}

func TestProgressNeverExceedsTheTotal(t *testing.T) {
	t.Parallel()
	st, _ := newStore(t)
	for i := range 20 {
		mustCreate(t, st, "Servico "+string(rune('A'+i)), false, nil)
	}
	ctx := context.Background()
	mustBegin(t, st, "runner", time.Minute)
	ri := mustClaim(t, st, "runner", time.Minute)
	docs, cursor := batchOf(t, st, "", 10)
	if err := st.IndexBatch(ctx, catalog.Progress{Lease: ri.Lease(), Cursor: cursor}, docs, time.Minute); err != nil {
		t.Fatal(err)
	}
	// Five Servicos the runner has passed are deleted, two are created
	// (after the cursor: ids grow with time).
	for _, d := range docs[:5] {
		if err := st.Delete(ctx, d.ServicoID); err != nil {
			t.Fatal(err)
		}
	}
	mustCreate(t, st, "Servico novo 1", false, nil)
	mustCreate(t, st, "Servico novo 2", false, nil)
	check := func(when string, processed, total int64) {
		t.Helper()
		st, err := st.ReindexStatus(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m := st.Reindex; m.Processed != processed || m.Total != total || m.Processed > m.Total {
			t.Errorf("%s: processed %d of %d, want %d of %d", when, m.Processed, m.Total, processed, total)
		}
	}
	docs, cursor = batchOf(t, st, cursor, 5)
	if err := st.IndexBatch(ctx, catalog.Progress{Lease: ri.Lease(), Cursor: cursor}, docs, time.Minute); err != nil {
		t.Fatal(err)
	}
	check("halfway, after deletes", 10, 17)
	docs, cursor = batchOf(t, st, cursor, 100)
	if err := st.IndexBatch(ctx, catalog.Progress{Lease: ri.Lease(), Cursor: cursor}, docs, time.Minute); err != nil {
		t.Fatal(err)
	}
	check("after the last batch", 17, 17)
	if missing, err := st.SwitchVersion(ctx, ri.Lease()); err != nil || missing != 0 {
		t.Fatalf("switch: %d missing, %v", missing, err)
	}
	check("after the switch", 17, 17)
}
