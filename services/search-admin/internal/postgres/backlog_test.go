package postgres_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
)

// gauge reads the value of the series name{labels} from reg.
func gauge(t *testing.T, reg *prometheus.Registry, name string, labels ...string) float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				found := false
				for _, l := range m.GetLabel() {
					found = found || (l.GetName() == labels[i] && l.GetValue() == labels[i+1])
				}
				if !found {
					continue metrics
				}
			}
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no series %s%v", name, labels)
	return 0
}

func TestBacklogGaugesFollowPendingEmbeddingsAndReindexProgress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	reg := prometheus.NewRegistry()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	m, err := catalog.NewBacklogMetrics(st, catalog.DefaultRegistry(), reg, log)
	if err != nil {
		t.Fatal(err)
	}
	refresh := func() {
		t.Helper()
		if err := m.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	pending := func() float64 { return gauge(t, reg, "search_embeddings_pending", "schema_version", "v3") }

	refresh()
	if n := pending(); n != 0 {
		t.Fatalf("pending on an empty catalog = %v", n)
	}
	for _, name := range []string{"Alvará", "IPTU", "Feira livre"} {
		mustCreate(t, st, name, true, nil) // the embedding provider failed at the write
	}
	mustCreate(t, st, "Poda de árvore", false, nil)
	refresh()
	if n := pending(); n != 3 {
		t.Fatalf("pending after three writes without an embedding = %v, want 3", n)
	}
	reembed := catalog.NewReembedder(st, catalog.DefaultRegistry(), embedding.Hash{}, catalog.ReembedConfig{
		Interval: time.Second, Batch: 2, Lease: time.Minute, BackoffBase: time.Second, BackoffMax: time.Second}, log)
	if _, err := reembed.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	refresh()
	if n := pending(); n != 1 {
		t.Fatalf("pending after the worker embedded a batch of two = %v, want 1", n)
	}

	if gauge(t, reg, "search_reindex_running") != 0 || gauge(t, reg, "search_reindex_last_progress_timestamp_seconds") != 0 {
		t.Fatal("re-index gauges not 0 while none runs")
	}
	mustBegin(t, st, "runner", time.Minute)
	refresh()
	started := gauge(t, reg, "search_reindex_last_progress_timestamp_seconds")
	if gauge(t, reg, "search_reindex_running") != 1 || gauge(t, reg, "search_reindex_servicos") != 4 ||
		gauge(t, reg, "search_reindex_processed_servicos") != 0 {
		t.Fatal("a started re-index is not reported running with 0 of 4 Servicos")
	}
	if now := float64(time.Now().Unix()); started < now-60 || started > now+60 {
		t.Fatalf("last progress of a re-index just started = %v, now is %v", started, now)
	}

	// A stalled runner that keeps its lease: claims and heartbeats move the
	// lease, not the progress.
	time.Sleep(10 * time.Millisecond)
	ri := mustClaim(t, st, "runner", time.Minute)
	if err := st.Heartbeat(ctx, ri.Lease(), time.Minute); err != nil {
		t.Fatal(err)
	}
	refresh()
	if at := gauge(t, reg, "search_reindex_last_progress_timestamp_seconds"); at != started {
		t.Fatalf("a claim and a heartbeat moved the last progress from %v to %v", started, at)
	}

	time.Sleep(10 * time.Millisecond)
	docs, cursor := batchOf(t, st, "", 2)
	if err := st.IndexBatch(ctx, catalog.Progress{Lease: ri.Lease(), Cursor: cursor}, docs, time.Minute); err != nil {
		t.Fatal(err)
	}
	refresh()
	if at := gauge(t, reg, "search_reindex_last_progress_timestamp_seconds"); at <= started {
		t.Fatalf("a written batch left the last progress at %v (started %v)", at, started)
	}
	if n := gauge(t, reg, "search_reindex_processed_servicos"); n != 2 {
		t.Fatalf("processed after a batch of two = %v", n)
	}

	if err := st.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	refresh()
	if gauge(t, reg, "search_reindex_running") != 0 || gauge(t, reg, "search_reindex_last_progress_timestamp_seconds") != 0 {
		t.Fatal("re-index gauges not back to 0 once the run was cancelled")
	}
}
