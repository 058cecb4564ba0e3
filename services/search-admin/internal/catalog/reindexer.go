package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Reindexer starts, runs, reports and rolls back search-schema re-indexes.
// Every replica runs one; the lease in Postgres lets only one runner work
// at a time and another replica finish a re-index whose runner died.
type Reindexer struct {
	store    ReindexStore
	schemas  *Registry
	embedder Embedder
	cfg      ReindexConfig
	log      *slog.Logger
	holder   string
	kick     chan struct{}
	tracer   trace.Tracer // nil: no spans
	// stopped is set when Run returns: a re-index this replica starts
	// afterwards (its server still draining) is handed over at once.
	stopped atomic.Bool
}

// Trace makes every re-index this replica runs a trace through tp: a
// "re-index" span, a "re-index batch" span per batch below it, and the
// embedding calls and statements below those. Nil, the default, makes none.
func (m *Reindexer) Trace(tp trace.TracerProvider) { m.tracer = tracerOf(tp) }

// NewReindexer wires a Reindexer whose lease holder name is holder (unique per
// replica, e.g. host name and process id).
func NewReindexer(store ReindexStore, schemas *Registry, embedder Embedder, cfg ReindexConfig, holder string, log *slog.Logger) *Reindexer {
	return &Reindexer{store: store, schemas: schemas, embedder: embedder, cfg: cfg, log: log, holder: holder,
		kick: make(chan struct{}, 1)}
}

// StartRequest is the body of POST /api/v1/admin/migration/start.
type StartRequest struct {
	SchemaVersion *string `json:"schema_version"`
	DryRun        *bool   `json:"dry_run"`
}

// Start begins a re-index to the version req names, run by this replica,
// or with dry_run only reports what it would do. v collects violations.
func (m *Reindexer) Start(ctx context.Context, req StartRequest, v *problem.Violations, by string) (*Reindex, *DryRunReport, error) {
	target := ""
	switch {
	case v.Has("schema_version"):
	case req.SchemaVersion == nil || *req.SchemaVersion == "":
		v.Add("schema_version", "required", "is required")
	default:
		target = *req.SchemaVersion
		if _, ok := m.schemas.Get(target); !ok {
			v.Addf("schema_version", "unknown_version", "must be one of %v", m.schemas.Versions())
		}
	}
	if err := v.Err(); err != nil {
		return nil, nil, err
	}
	if req.DryRun != nil && *req.DryRun {
		report, err := m.store.DryRun(ctx, target)
		return nil, &report, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, nil, fmt.Errorf("new re-index id: %w", err)
	}
	ri := &Reindex{ID: id.String(), SchemaVersion: target, StartedBy: by, LeaseHolder: m.holder}
	if err := m.store.BeginReindex(ctx, ri, m.cfg.LeaseTTL); err != nil {
		return nil, nil, err
	}
	m.log.InfoContext(ctx, "re-index started", "reindex_id", ri.ID, "from", ri.FromVersion, "to", target)
	// Checked after the row is written: either this sees Run stopped, or
	// Run, stopping later, ends the lease of this row.
	if m.stopped.Load() {
		m.handOver(ctx, m.log.With("reindex_id", ri.ID))
	}
	select {
	case m.kick <- struct{}{}:
	default:
	}
	return ri, nil, nil
}

// Status reports the versions and the latest re-index.
func (m *Reindexer) Status(ctx context.Context) (ReindexStatus, error) {
	return m.store.ReindexStatus(ctx)
}

// Rollback cancels the running re-index, or else switches search back to
// the previous version, whose documents writes kept fresh: no re-index.
func (m *Reindexer) Rollback(ctx context.Context) (ReindexStatus, error) {
	if err := m.store.Rollback(ctx); err != nil {
		return ReindexStatus{}, err
	}
	st, err := m.store.ReindexStatus(ctx)
	if err == nil {
		m.log.InfoContext(ctx, "re-index rolled back", "current_version", st.CurrentVersion)
	}
	return st, err
}

// History returns one page of re-indexes, newest first.
func (m *Reindexer) History(ctx context.Context, page, perPage int) ([]Reindex, int64, error) {
	return m.store.ReindexHistory(ctx, page, perPage)
}
