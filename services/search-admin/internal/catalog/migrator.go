package catalog

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/google/uuid"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Migrator starts, runs, reports and rolls back search-schema migrations.
// Every replica runs one; the lease in Postgres lets only one runner work
// at a time and another replica finish a migration whose runner died.
type Migrator struct {
	store    MigrationStore
	schemas  *Registry
	embedder Embedder
	cfg      MigrationConfig
	log      *slog.Logger
	holder   string
	kick     chan struct{}
}

// NewMigrator wires a Migrator whose lease holder name is holder (unique per
// replica, e.g. host name and process id).
func NewMigrator(store MigrationStore, schemas *Registry, embedder Embedder, cfg MigrationConfig, holder string, log *slog.Logger) *Migrator {
	return &Migrator{store: store, schemas: schemas, embedder: embedder, cfg: cfg, log: log, holder: holder,
		kick: make(chan struct{}, 1)}
}

// StartRequest is the body of POST /api/v1/admin/migration/start.
type StartRequest struct {
	SchemaVersion *string `json:"schema_version"`
	DryRun        *bool   `json:"dry_run"`
}

// Start begins a migration to the version req names, run by this replica,
// or with dry_run only reports what it would do. v collects violations.
func (m *Migrator) Start(ctx context.Context, req StartRequest, v *problem.Violations, by string) (*Migration, *DryRunReport, error) {
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
		return nil, nil, fmt.Errorf("new migration id: %w", err)
	}
	mig := &Migration{ID: id.String(), SchemaVersion: target, StartedBy: by, LeaseHolder: m.holder}
	if err := m.store.BeginMigration(ctx, mig, m.cfg.LeaseTTL); err != nil {
		return nil, nil, err
	}
	m.log.InfoContext(ctx, "migration started", "migration_id", mig.ID, "from", mig.FromVersion, "to", target)
	select {
	case m.kick <- struct{}{}:
	default:
	}
	return mig, nil, nil
}

// Status reports the versions and the latest migration.
func (m *Migrator) Status(ctx context.Context) (MigrationStatus, error) {
	return m.store.MigrationStatus(ctx)
}

// Rollback cancels the running migration, or else switches search back to
// the previous version, whose documents writes kept fresh: no re-index.
func (m *Migrator) Rollback(ctx context.Context) (MigrationStatus, error) {
	if err := m.store.Rollback(ctx); err != nil {
		return MigrationStatus{}, err
	}
	st, err := m.store.MigrationStatus(ctx)
	if err == nil {
		m.log.InfoContext(ctx, "migration rolled back", "current_version", st.CurrentVersion)
	}
	return st, err
}

// History returns one page of migrations, newest first.
func (m *Migrator) History(ctx context.Context, page, perPage int) ([]Migration, int64, error) {
	return m.store.MigrationHistory(ctx, page, perPage)
}
