package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// VectorSource reads the vectors of the current schema version and reports
// catalog changes; the Postgres store implements it.
type VectorSource interface {
	// LoadVectors reads every Servico with its current-version document.
	LoadVectors(ctx context.Context) (version string, entries []VectorEntry, err error)
	// LoadVectorsOf reads the Servicos ids that still exist.
	LoadVectorsOf(ctx context.Context, ids []string) (version string, entries []VectorEntry, err error)
	// VectorFingerprint summarizes the catalog as the database sees it now.
	VectorFingerprint(ctx context.Context) (Fingerprint, error)
	// ListenChanges calls changed with the ids of committed changes (AllChanged
	// for a version switch) until ctx is done or the connection fails;
	// listening has begun when ready is called.
	ListenChanges(ctx context.Context, ready func(), changed func(id string)) error
}

// AllChanged is the change notification of a version switch or rollback.
const AllChanged = "*"

// reconnected marks the pending set after a (re)connect of the listener:
// changes may have been missed, so the fingerprint is compared.
const reconnected = "?"

// VectorSyncConfig tunes how a replica keeps its vectors fresh.
type VectorSyncConfig struct {
	// Recheck is the period of the fingerprint comparison that catches lost notifications.
	Recheck time.Duration `env:"SEARCH_INDEX_RECHECK, default=2s"`
	// MaxTargeted is the largest burst of changes reloaded one by one; a
	// bigger burst reloads everything.
	MaxTargeted int `env:"SEARCH_INDEX_MAX_TARGETED, default=500"`
}

// Validate reports settings that cannot work.
func (c VectorSyncConfig) Validate() error {
	if c.Recheck <= 0 || c.MaxTargeted <= 0 {
		return errors.New("SEARCH_INDEX_RECHECK and SEARCH_INDEX_MAX_TARGETED must be positive")
	}
	return nil
}

// VectorSync keeps a VectorIndex equal to the current version in Postgres:
// LISTEN notifications reload the Servicos that changed within milliseconds,
// and a periodic fingerprint comparison reloads everything when a
// notification was lost, so every replica converges within Recheck.
type VectorSync struct {
	index   *VectorIndex
	source  VectorSource
	schemas *Registry
	cfg     VectorSyncConfig
	log     *slog.Logger

	reload  sync.Mutex // serializes loads, so a slower one never overwrites a newer
	mu      sync.Mutex
	pending map[string]bool
	wake    chan struct{}
	retry   reconnectBackoff
}

// reconnectBackoff is the pause before the change listener connects again:
// it doubles from first up to most while connections keep failing, and
// starts from first again after a connection that stayed up for healthy, so
// one interruption a day does not leave the listener slow for good.
type reconnectBackoff struct {
	first, most, healthy time.Duration
	next                 time.Duration
}

// listenBackoff is the listener's reconnectBackoff.
var listenBackoff = reconnectBackoff{first: 100 * time.Millisecond, most: 10 * time.Second, healthy: 10 * time.Second}

// after returns the pause after a connection that was up for up (zero when
// it never came up).
func (b *reconnectBackoff) after(up time.Duration) time.Duration {
	if b.next == 0 || up >= b.healthy {
		b.next = b.first
	}
	d := b.next
	b.next = min(2*b.next, b.most)
	return d
}

// NewVectorSync wires a VectorSync that fills index from source.
func NewVectorSync(index *VectorIndex, source VectorSource, schemas *Registry, cfg VectorSyncConfig, log *slog.Logger) *VectorSync {
	return &VectorSync{index: index, source: source, schemas: schemas, cfg: cfg, log: log,
		pending: map[string]bool{}, wake: make(chan struct{}, 1), retry: listenBackoff}
}

// LoadAll replaces the index with the current version read now.
func (s *VectorSync) LoadAll(ctx context.Context) error {
	s.reload.Lock()
	defer s.reload.Unlock()
	return s.loadAll(ctx)
}

func (s *VectorSync) loadAll(ctx context.Context) error {
	version, entries, err := s.source.LoadVectors(ctx)
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	schema, _ := s.schemas.Get(version)
	s.index.Replace(version, schema.Dimensions, entries)
	s.log.DebugContext(ctx, "vector index loaded", "schema_version", version, "vectors", s.index.Len())
	return nil
}

// EnsureVersion reloads the index unless it already holds version, so a
// search right after a switch or rollback never mixes versions.
func (s *VectorSync) EnsureVersion(ctx context.Context, version string) error {
	if s.index.Version() == version {
		return nil
	}
	s.reload.Lock()
	defer s.reload.Unlock()
	if s.index.Version() == version {
		return nil
	}
	return s.loadAll(ctx)
}

// Run listens for changes and rechecks the fingerprint until ctx is done.
func (s *VectorSync) Run(ctx context.Context) error {
	go s.listen(ctx)
	tick := time.NewTicker(s.cfg.Recheck)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-ctx.Done():
			return nil
		case <-s.wake:
			err = s.applyPending(ctx)
		case <-tick.C:
			err = s.Recheck(ctx)
		}
		if err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "vector index refresh failed", "err", err)
		}
	}
}

// listen keeps a LISTEN connection open, reconnecting with backoff; after a
// reconnect it rechecks, since notifications sent meanwhile are lost.
func (s *VectorSync) listen(ctx context.Context) {
	for ctx.Err() == nil {
		var upSince time.Time
		err := s.source.ListenChanges(ctx, func() { upSince = time.Now(); s.notify(reconnected) }, s.notify)
		if ctx.Err() != nil {
			return
		}
		var up time.Duration
		if !upSince.IsZero() {
			up = time.Since(upSince)
		}
		delay := s.retry.after(up)
		s.log.WarnContext(ctx, "change notifications interrupted", "err", err, "was_up", up.String(), "retry_in", delay.String())
		select {
		case <-ctx.Done():
		case <-time.After(delay):
		}
	}
}

// notify queues id for reload.
func (s *VectorSync) notify(id string) {
	s.mu.Lock()
	s.pending[id] = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// applyPending reloads the queued Servicos, or everything after a switch or
// a burst too big to reload one by one.
func (s *VectorSync) applyPending(ctx context.Context) error {
	s.mu.Lock()
	recheck := s.pending[reconnected]
	delete(s.pending, reconnected)
	all := s.pending[AllChanged] || len(s.pending) > s.cfg.MaxTargeted
	ids := make([]string, 0, len(s.pending))
	for id := range s.pending {
		ids = append(ids, id)
	}
	clear(s.pending)
	s.mu.Unlock()
	s.reload.Lock()
	defer s.reload.Unlock()
	if all {
		return s.loadAll(ctx)
	}
	if len(ids) > 0 {
		if err := s.reloadOf(ctx, ids); err != nil {
			return err
		}
	}
	if recheck {
		return s.recheck(ctx)
	}
	return nil
}

// Refresh reloads the Servicos ids into the index now, as their change
// notifications would a moment later.
func (s *VectorSync) Refresh(ctx context.Context, ids ...string) error {
	s.reload.Lock()
	defer s.reload.Unlock()
	return s.reloadOf(ctx, ids)
}

// reloadOf reads the Servicos ids and applies them to the index, or
// reloads everything when the version moved; the caller holds reload.
func (s *VectorSync) reloadOf(ctx context.Context, ids []string) error {
	version, entries, err := s.source.LoadVectorsOf(ctx, ids)
	if err != nil {
		return fmt.Errorf("reload changed vectors: %w", err)
	}
	if !s.index.Apply(version, entries, gone(ids, entries)) {
		return s.loadAll(ctx)
	}
	return nil
}

// Recheck compares the index's fingerprint with the database's and reloads
// everything when they differ.
func (s *VectorSync) Recheck(ctx context.Context) error {
	s.reload.Lock()
	defer s.reload.Unlock()
	return s.recheck(ctx)
}

func (s *VectorSync) recheck(ctx context.Context) error {
	db, err := s.source.VectorFingerprint(ctx)
	if err != nil {
		return fmt.Errorf("read catalog fingerprint: %w", err)
	}
	if mem := s.index.Fingerprint(); mem != db {
		s.log.InfoContext(ctx, "vector index out of date, reloading", "schema_version", db.Version)
		return s.loadAll(ctx)
	}
	return nil
}

// gone lists the ids that were asked for but not found.
func gone(asked []string, found []VectorEntry) []string {
	seen := make(map[string]bool, len(found))
	for _, e := range found {
		seen[e.ID] = true
	}
	var out []string
	for _, id := range asked {
		if !seen[id] {
			out = append(out, id)
		}
	}
	return out
}
