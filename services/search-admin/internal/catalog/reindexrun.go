package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/municipal-apis/platform/pkg/version"
)

// Run looks for a re-index to run (one this replica started, or one whose
// runner's lease expired) every Poll, and runs it, until ctx is done.
func (m *Reindexer) Run(ctx context.Context) error {
	announced := make(chan struct{})
	go func() {
		defer close(announced)
		m.announce(ctx)
	}()
	defer func() { <-announced }()
	for {
		ri, err := m.store.ClaimReindex(ctx, m.holder, m.cfg.LeaseTTL, m.schemas.Versions())
		switch {
		case err != nil && ctx.Err() == nil:
			m.log.ErrorContext(ctx, "look for a re-index to run", "err", err)
		case ri != nil:
			m.execute(ctx, ri)
		}
		select {
		case <-ctx.Done():
			// The run this replica was running, or one it started and
			// has not claimed yet (its start came as it stopped), is
			// handed over.
			m.stopped.Store(true)
			m.handOver(ctx, m.log)
			return nil
		case <-m.kick:
		case <-time.After(m.cfg.Poll):
		}
	}
}

// announce tells the other replicas every Poll, until ctx is done, that
// this one runs and which schema versions its build defines (Announce),
// and retires it then. A replica that dies without retiring counts as
// running for announceTTL more.
func (m *Reindexer) announce(ctx context.Context) {
	r := Replica{Holder: m.holder, Release: version.Version, Versions: m.schemas.Versions()}
	ttl := max(3*m.cfg.Poll, announceTTL)
	failing := false
	for {
		err := m.store.Announce(ctx, r, ttl)
		switch {
		case err != nil && ctx.Err() == nil && !failing:
			failing = true
			m.log.WarnContext(ctx, "replica not announced; re-indexes to versions it does not define are not refused meanwhile", "err", err)
		case err == nil && failing:
			failing = false
			m.log.InfoContext(ctx, "replica announced again")
		}
		select {
		case <-ctx.Done():
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handOverTimeout)
			defer cancel()
			if err := m.store.Retire(ctx, m.holder); err != nil {
				m.log.WarnContext(ctx, "replica not retired; it counts as running until its announcement expires", "err", err, "ttl", ttl.String())
			}
			return
		case <-time.After(m.cfg.Poll):
		}
	}
}

// announceTTL is the least time a replica's announcement lasts.
const announceTTL = 15 * time.Second

// execute runs ri under a heartbeat until it is switched, ctx is done or
// the lease is lost.
func (m *Reindexer) execute(ctx context.Context, ri *Reindex) {
	ctx, end := startSpan(m.tracer, ctx, "re-index",
		attribute.String("municipal.reindex.id", ri.ID), attribute.String("municipal.reindex.schema_version", ri.SchemaVersion))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go m.heartbeat(ctx, cancel, ri.Lease())
	log := m.log.With("reindex_id", ri.ID, "schema_version", ri.SchemaVersion)
	log.InfoContext(ctx, "running re-index", "resume_after", ri.Cursor, "takeovers", ri.Takeovers, "lease_generation", ri.Generation)
	err := m.indexAll(ctx, ri)
	if err == nil {
		err = m.finish(ctx, ri)
	}
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, ErrLeaseLost) {
		err = cause // the heartbeat found the lease lost and stopped the run
	}
	end(err) // a run stopped by its replica's stop is handed over as Run returns
	switch {
	case err == nil:
		log.InfoContext(ctx, "re-index completed, version switched")
	case errors.Is(err, ErrLeaseLost):
		log.WarnContext(ctx, "re-index stopped: lease lost or re-index cancelled")
	default:
		log.WarnContext(ctx, "re-index runner stopped", "err", err)
	}
}

// handOver ends the leases of the runs this replica stops holding because
// it is stopping itself (a rollout's SIGTERM): another replica's next poll
// takes the run over then, not a whole lease later.
func (m *Reindexer) handOver(ctx context.Context, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handOverTimeout)
	defer cancel()
	n, err := m.store.EndLeases(ctx, m.holder)
	switch {
	case err != nil:
		log.WarnContext(ctx, "re-index lease not handed over; another replica takes the run when it expires", "err", err)
	case n > 0:
		log.InfoContext(ctx, "re-index handed over: its lease ends now")
	}
}

// handOverTimeout bounds the hand-over of a stopping runner's lease, which
// the drain of the replica waits for.
const handOverTimeout = 2 * time.Second

// heartbeat extends the lease every third of its TTL; losing it cancels the run.
func (m *Reindexer) heartbeat(ctx context.Context, cancel context.CancelCauseFunc, l Lease) {
	tick := time.NewTicker(m.cfg.LeaseTTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := m.store.Heartbeat(ctx, l, m.cfg.LeaseTTL)
		if errors.Is(err, ErrLeaseLost) {
			cancel(err)
			return
		}
		if err != nil && ctx.Err() == nil {
			m.log.WarnContext(ctx, "re-index heartbeat failed", "reindex_id", l.ReindexID, "err", err)
		}
	}
}

// indexAll indexes every Servico after the cursor, batch by batch in id order.
func (m *Reindexer) indexAll(ctx context.Context, ri *Reindex) error {
	cursor := ri.Cursor
	for {
		var batch []Servico
		var seqs []int64
		err := m.retry(ctx, func() (err error) {
			batch, seqs, err = m.store.ReindexBatch(ctx, cursor, m.cfg.BatchSize)
			return err
		})
		if err != nil || len(batch) == 0 {
			return err
		}
		last := batch[len(batch)-1].ID
		if err := m.indexBatch(ctx, ri, batch, seqs, last); err != nil {
			return err
		}
		cursor = last
	}
}

// finish re-indexes any Servico still without a target document (one
// changed while its batch was written) and switches the version.
func (m *Reindexer) finish(ctx context.Context, ri *Reindex) error {
	for {
		var batch []Servico
		var seqs []int64
		err := m.retry(ctx, func() (err error) {
			batch, seqs, err = m.store.MissingDocuments(ctx, ri.SchemaVersion, m.cfg.BatchSize)
			return err
		})
		if err != nil {
			return err
		}
		if len(batch) > 0 {
			if err := m.indexBatch(ctx, ri, batch, seqs, ""); err != nil {
				return err
			}
			continue
		}
		var missing int64
		err = m.retry(ctx, func() (err error) {
			missing, err = m.store.SwitchVersion(ctx, ri.Lease())
			return err
		})
		if err != nil || missing == 0 {
			return err
		}
	}
}

// indexBatch builds the target documents of batch and writes them.
func (m *Reindexer) indexBatch(ctx context.Context, ri *Reindex, batch []Servico, seqs []int64, cursor string) (err error) {
	ctx, end := startSpan(m.tracer, ctx, "re-index batch", attribute.Int("municipal.reindex.batch_size", len(batch)))
	defer func() { end(err) }()
	docs := make([]BatchDocument, len(batch))
	for i := range batch {
		doc, err := buildDocument(ctx, m.schemas, m.embedder, m.log, &batch[i], ri.SchemaVersion)
		if err != nil {
			return err
		}
		docs[i] = BatchDocument{ServicoID: batch[i].ID, Seq: seqs[i], Doc: doc}
	}
	p := Progress{Lease: ri.Lease(), Cursor: cursor}
	return m.retry(ctx, func() error { return m.store.IndexBatch(ctx, p, docs, m.cfg.LeaseTTL) })
}

// retry calls fn until it succeeds, the lease is lost or ctx is done,
// pausing RetryDelay after each failure.
func (m *Reindexer) retry(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if err == nil || errors.Is(err, ErrLeaseLost) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("re-index interrupted: %w", ctx.Err())
		}
		m.log.WarnContext(ctx, "re-index step failed, retrying", "err", err, "retry_in", m.cfg.RetryDelay.String())
		select {
		case <-ctx.Done():
			return fmt.Errorf("re-index interrupted: %w", ctx.Err())
		case <-time.After(m.cfg.RetryDelay):
		}
	}
}
