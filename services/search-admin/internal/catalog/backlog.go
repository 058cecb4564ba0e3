package catalog

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// BacklogInterval is how often a replica reads the background work left
// into its gauges: about one Prometheus scrape interval.
const BacklogInterval = 15 * time.Second

// Backlog is the work the background workers have left, read from
// Postgres, so every replica reports the same figures whichever of them
// does the work (or none does).
type Backlog struct {
	// Pending counts the documents waiting for an embedding, per schema version.
	Pending map[string]int64
	// Reindex is the running re-index, nil when none runs.
	Reindex *ReindexProgress
}

// ReindexProgress is how far the running re-index got.
type ReindexProgress struct {
	SchemaVersion    string
	Processed, Total int64
	// ProgressedAt is when the run last wrote a batch (or started), in Unix
	// seconds; claims and heartbeats do not move it.
	ProgressedAt float64
}

// BacklogStore reads the Backlog.
type BacklogStore interface {
	Backlog(ctx context.Context) (Backlog, error)
}

// BacklogMetrics keeps the backlog gauges of a replica up to date: one
// read of Postgres every BacklogInterval (an index scan of the pending
// documents and of the running re-index), nothing per request.
type BacklogMetrics struct {
	store    BacklogStore
	versions []string
	log      *slog.Logger

	pending      *prometheus.GaugeVec
	running      prometheus.Gauge
	processed    prometheus.Gauge
	total        prometheus.Gauge
	lastProgress prometheus.Gauge
}

// NewBacklogMetrics registers the backlog gauges on reg. Every version of
// schemas has a pending gauge from the start, 0 until read otherwise.
func NewBacklogMetrics(store BacklogStore, schemas *Registry, reg prometheus.Registerer, log *slog.Logger) (*BacklogMetrics, error) {
	m := &BacklogMetrics{
		store: store, versions: schemas.Versions(), log: log,
		pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "search_embeddings_pending",
			Help: "Search documents waiting for an embedding (the re-embed worker's backlog), per schema version.",
		}, []string{"schema_version"}),
		running: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "search_reindex_running",
			Help: "1 while a re-index runs (in any replica).",
		}),
		processed: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "search_reindex_processed_servicos",
			Help: "Servicos the running re-index has indexed; 0 when none runs.",
		}),
		total: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "search_reindex_servicos",
			Help: "Servicos the running re-index has to index; 0 when none runs.",
		}),
		lastProgress: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "search_reindex_last_progress_timestamp_seconds",
			Help: "When the running re-index last wrote a batch (or started), heartbeats aside; 0 when none runs.",
		}),
	}
	for _, c := range []prometheus.Collector{m.pending, m.running, m.processed, m.total, m.lastProgress} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for _, v := range m.versions {
		m.pending.WithLabelValues(v)
	}
	return m, nil
}

// Refresh reads the backlog once into the gauges. On an error they keep
// their last values.
func (m *BacklogMetrics) Refresh(ctx context.Context) error {
	b, err := m.store.Backlog(ctx)
	if err != nil {
		return err
	}
	for _, v := range m.versions {
		m.pending.WithLabelValues(v).Set(float64(b.Pending[v]))
	}
	for v, n := range b.Pending { // documents of a version this build does not define
		m.pending.WithLabelValues(v).Set(float64(n))
	}
	r := b.Reindex
	if r == nil {
		r = &ReindexProgress{}
		m.running.Set(0)
	} else {
		m.running.Set(1)
	}
	m.processed.Set(float64(r.Processed))
	m.total.Set(float64(r.Total))
	m.lastProgress.Set(r.ProgressedAt)
	return nil
}

// Run refreshes the gauges every BacklogInterval until ctx is done.
func (m *BacklogMetrics) Run(ctx context.Context) error {
	for {
		rctx, cancel := context.WithTimeout(ctx, BacklogInterval)
		err := m.Refresh(rctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			m.log.WarnContext(ctx, "read the background backlog for the metrics", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(BacklogInterval):
		}
	}
}
