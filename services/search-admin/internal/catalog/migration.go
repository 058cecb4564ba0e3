package catalog

import (
	"context"
	"errors"
	"time"
)

// Migration states.
const (
	MigrationRunning    = "running"
	MigrationCompleted  = "completed"
	MigrationCancelled  = "cancelled"
	MigrationRolledBack = "rolled_back"
)

// ErrLeaseLost stops a runner whose migration lease another replica took
// over, or whose migration was cancelled.
var ErrLeaseLost = errors.New("migration lease lost")

// Migration is one re-indexing of the catalog into a schema version. While
// it runs, its row is the lease: LeaseHolder keeps it by a heartbeat, and
// another replica takes it over once LeaseExpiresAt has passed.
type Migration struct {
	ID             string `json:"id"`
	FromVersion    string `json:"from_version"`
	SchemaVersion  string `json:"schema_version"`
	State          string `json:"state"`
	StartedBy      string `json:"started_by"`
	Processed      int64  `json:"processed"`
	Total          int64  `json:"total"`
	LeaseHolder    string `json:"lease_holder,omitempty"`
	LeaseExpiresAt *int64 `json:"lease_expires_at,omitempty"`
	Takeovers      int    `json:"takeovers"`
	StartedAt      int64  `json:"started_at"`
	UpdatedAt      int64  `json:"updated_at"`
	FinishedAt     *int64 `json:"finished_at,omitempty"`
	RolledBackAt   *int64 `json:"rolled_back_at,omitempty"`
	// Cursor is the last Servico id indexed, where a takeover resumes.
	Cursor string `json:"-"`
}

// MigrationStatus is the state of the search schema: the version in use, the
// one a rollback would return to, the target of a running migration, and
// the latest migration (nil when none ever ran).
type MigrationStatus struct {
	CurrentVersion  string     `json:"current_version"`
	PreviousVersion *string    `json:"previous_version"`
	TargetVersion   *string    `json:"target_version"`
	Migration       *Migration `json:"migration"`
}

// DryRunReport is what a migration would do, computed without writing.
type DryRunReport struct {
	DryRun        bool   `json:"dry_run"`
	FromVersion   string `json:"from_version"`
	SchemaVersion string `json:"schema_version"`
	// Servicos is how many documents the migration would build.
	Servicos  int64 `json:"servicos"`
	Published int64 `json:"published"`
	// ExistingDocuments of the target version would be rebuilt from scratch.
	ExistingDocuments int64 `json:"existing_documents"`
}

// BatchDocument is a document the runner built from a Servico as it was at
// change_seq Seq; it is written only if the Servico has not changed since.
type BatchDocument struct {
	ServicoID string
	Seq       int64
	Doc       Document
}

// Progress identifies the runner writing a batch and how far it got.
type Progress struct {
	MigrationID string
	Holder      string
	// Cursor is the last Servico id of the batch ("" leaves it unchanged).
	Cursor string
	// Read is how many Servicos the batch covered.
	Read int
}

// MigrationStore persists migrations and their lease.
type MigrationStore interface {
	// BeginMigration records m as running and held by m.LeaseHolder for
	// lease, makes writes index its target, and drops any stale documents
	// of the target; ECONFLICT when a migration runs or the target is current.
	BeginMigration(ctx context.Context, m *Migration, lease time.Duration) error
	// DryRun counts what a migration to target would index.
	DryRun(ctx context.Context, target string) (DryRunReport, error)
	// ClaimMigration takes the running migration (of a version in known)
	// when holder holds it already or its lease has expired; nil when none.
	ClaimMigration(ctx context.Context, holder string, lease time.Duration, known []string) (*Migration, error)
	// Heartbeat extends holder's lease; ErrLeaseLost when it is not holder's.
	Heartbeat(ctx context.Context, id, holder string, lease time.Duration) error
	// MigrationBatch reads up to limit Servicos after the id after, in id
	// order, with their change_seq.
	MigrationBatch(ctx context.Context, after string, limit int) ([]Servico, []int64, error)
	// MissingDocuments reads up to limit Servicos without a document of version.
	MissingDocuments(ctx context.Context, version string, limit int) ([]Servico, []int64, error)
	// IndexBatch writes docs of the Servicos unchanged since they were read
	// and records p, extending the lease; ErrLeaseLost when it is not p.Holder's.
	IndexBatch(ctx context.Context, p Progress, docs []BatchDocument, lease time.Duration) error
	// SwitchVersion makes the target current, if every Servico has a target
	// document; it returns how many lack one otherwise, switching nothing.
	SwitchVersion(ctx context.Context, id, holder string) (missing int64, err error)
	// Rollback cancels the running migration, or else switches back to the
	// previous version; ECONFLICT when there is nothing to roll back.
	Rollback(ctx context.Context) error
	// MigrationStatus reads the versions and the latest migration.
	MigrationStatus(ctx context.Context) (MigrationStatus, error)
	// MigrationHistory returns one page of migrations, newest first.
	MigrationHistory(ctx context.Context, page, perPage int) ([]Migration, int64, error)
}

// MigrationConfig tunes migration runners.
type MigrationConfig struct {
	// LeaseTTL is how long a runner's lease lasts without a heartbeat.
	LeaseTTL time.Duration `env:"MIGRATION_LEASE_TTL, default=15s"`
	// Poll is how often a replica looks for a migration to take over.
	Poll time.Duration `env:"MIGRATION_POLL_INTERVAL, default=5s"`
	// BatchSize is how many Servicos one batch indexes.
	BatchSize int `env:"MIGRATION_BATCH_SIZE, default=500"`
	// RetryDelay is the pause after a failed batch before trying again.
	RetryDelay time.Duration `env:"MIGRATION_RETRY_DELAY, default=1s"`
}

// Validate reports settings that cannot work.
func (c MigrationConfig) Validate() error {
	if c.LeaseTTL <= 0 || c.Poll <= 0 || c.BatchSize <= 0 || c.RetryDelay <= 0 {
		return errors.New("MIGRATION_LEASE_TTL, MIGRATION_POLL_INTERVAL, MIGRATION_BATCH_SIZE and MIGRATION_RETRY_DELAY must be positive")
	}
	return nil
}
