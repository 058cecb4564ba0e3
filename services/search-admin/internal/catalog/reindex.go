package catalog

import (
	"context"
	"errors"
	"time"
)

// Reindex states.
const (
	ReindexRunning    = "running"
	ReindexCompleted  = "completed"
	ReindexCancelled  = "cancelled"
	ReindexRolledBack = "rolled_back"
)

// ErrLeaseLost stops a runner whose re-index lease another replica took
// over, or whose re-index was cancelled.
var ErrLeaseLost = errors.New("re-index lease lost")

// Reindex is one re-indexing of the catalog into a schema version. While
// it runs, its row is the lease: LeaseHolder keeps it by a heartbeat, and
// another replica takes it over once LeaseExpiresAt has passed.
type Reindex struct {
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
	// Generation counts the claims of the lease; the runner's writes name it.
	Generation int64 `json:"-"`
}

// Lease names the claim a runner works under: a write succeeds only while
// the run is still held by Holder in the same Generation, so a runner that
// stalled past its lease and wakes after a takeover is fenced off.
type Lease struct {
	ReindexID  string
	Holder     string
	Generation int64
}

// Lease returns the claim r was read with.
func (r *Reindex) Lease() Lease {
	return Lease{ReindexID: r.ID, Holder: r.LeaseHolder, Generation: r.Generation}
}

// ReindexStatus is the state of the search schema: the version in use, the
// one a rollback would return to, the target of a running re-index, and
// the latest re-index (nil when none ever ran).
type ReindexStatus struct {
	CurrentVersion  string   `json:"current_version"`
	PreviousVersion *string  `json:"previous_version"`
	TargetVersion   *string  `json:"target_version"`
	Reindex         *Reindex `json:"migration"`
}

// DryRunReport is what a re-index would do, computed without writing.
type DryRunReport struct {
	DryRun        bool   `json:"dry_run"`
	FromVersion   string `json:"from_version"`
	SchemaVersion string `json:"schema_version"`
	// Servicos is how many documents the re-index would build.
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
	Lease Lease
	// Cursor is the last Servico id of the batch ("" leaves it unchanged).
	Cursor string
}

// ReindexStore persists re-indexes and their lease.
type ReindexStore interface {
	// BeginReindex records m as running and held by m.LeaseHolder for
	// lease, makes writes index its target, and drops any stale documents
	// of the target; ECONFLICT when a re-index runs or the target is current.
	BeginReindex(ctx context.Context, m *Reindex, lease time.Duration) error
	// DryRun counts what a re-index to target would index.
	DryRun(ctx context.Context, target string) (DryRunReport, error)
	// ClaimReindex takes the running re-index (of a version in known)
	// when holder holds it already or its lease has expired, in a new lease
	// generation; nil when none. It never waits for a row lock: a run
	// whose row another session holds is left for the next poll.
	ClaimReindex(ctx context.Context, holder string, lease time.Duration, known []string) (*Reindex, error)
	// Announce records r as running for ttl, replacing its last
	// announcement: a re-index to a version, or a rollback to one, that a
	// running replica does not define is ECONFLICT (BeginReindex, DryRun,
	// Rollback).
	Announce(ctx context.Context, r Replica, ttl time.Duration) error
	// Retire removes holder's announcement: it stops running.
	Retire(ctx context.Context, holder string) error
	// Heartbeat extends l; ErrLeaseLost when the run is no longer held under l.
	Heartbeat(ctx context.Context, l Lease, lease time.Duration) error
	// EndLeases ends now every lease holder holds on a running re-index, so
	// that another replica's next claim takes the run, and returns how many
	// it ended.
	EndLeases(ctx context.Context, holder string) (int64, error)
	// ReindexBatch reads up to limit Servicos after the id after, in id
	// order, with their change_seq.
	ReindexBatch(ctx context.Context, after string, limit int) ([]Servico, []int64, error)
	// MissingDocuments reads up to limit Servicos without a document of version.
	MissingDocuments(ctx context.Context, version string, limit int) ([]Servico, []int64, error)
	// IndexBatch writes, in one statement, docs of the Servicos unchanged
	// since they were read and not being written right now, and records p,
	// extending the lease; ErrLeaseLost when the run is no longer held under
	// p.Lease. No lock outlives the statement, so a runner stopped between
	// batches holds nothing.
	IndexBatch(ctx context.Context, p Progress, docs []BatchDocument, lease time.Duration) error
	// SwitchVersion makes the target current, if every Servico has a target
	// document; it returns how many lack one otherwise, switching nothing,
	// and ErrLeaseLost when the run is no longer held under l.
	SwitchVersion(ctx context.Context, l Lease) (missing int64, err error)
	// Rollback cancels the running re-index, or else switches back to the
	// previous version; ECONFLICT when there is nothing to roll back.
	Rollback(ctx context.Context) error
	// ReindexStatus reads the versions and the latest re-index.
	ReindexStatus(ctx context.Context) (ReindexStatus, error)
	// ReindexHistory returns one page of re-indexes, newest first.
	ReindexHistory(ctx context.Context, page, perPage int) ([]Reindex, int64, error)
}

// Replica is a running search-admin process as the others see it: its
// lease holder name, the release it runs and the search-schema versions its
// build defines.
type Replica struct {
	Holder, Release string
	Versions        []string
}

// ReindexConfig tunes re-index runners.
type ReindexConfig struct {
	// LeaseTTL is how long a runner's lease lasts without a heartbeat.
	LeaseTTL time.Duration `env:"REINDEX_LEASE_TTL, default=15s"`
	// Poll is how often a replica looks for a re-index to take over.
	Poll time.Duration `env:"REINDEX_POLL_INTERVAL, default=5s"`
	// BatchSize is how many Servicos one batch indexes.
	BatchSize int `env:"REINDEX_BATCH_SIZE, default=500"`
	// RetryDelay is the pause after a failed batch before trying again.
	RetryDelay time.Duration `env:"REINDEX_RETRY_DELAY, default=1s"`
}

// Validate reports settings that cannot work.
func (c ReindexConfig) Validate() error {
	if c.LeaseTTL <= 0 || c.Poll <= 0 || c.BatchSize <= 0 || c.RetryDelay <= 0 {
		return errors.New("REINDEX_LEASE_TTL, REINDEX_POLL_INTERVAL, REINDEX_BATCH_SIZE and REINDEX_RETRY_DELAY must be positive")
	}
	if c.LeaseTTL <= time.Second {
		return errors.New("REINDEX_LEASE_TTL must be above 1s, the longest a re-indexing statement waits for a lock")
	}
	return nil
}
