package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Run looks for a migration to run (one this replica started, or one whose
// runner's lease expired) every Poll, and runs it, until ctx is done.
func (m *Migrator) Run(ctx context.Context) error {
	for {
		mig, err := m.store.ClaimMigration(ctx, m.holder, m.cfg.LeaseTTL, m.schemas.Versions())
		switch {
		case err != nil && ctx.Err() == nil:
			m.log.ErrorContext(ctx, "look for a migration to run", "err", err)
		case mig != nil:
			m.execute(ctx, mig)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-m.kick:
		case <-time.After(m.cfg.Poll):
		}
	}
}

// execute runs mig under a heartbeat until it is switched, ctx is done or
// the lease is lost.
func (m *Migrator) execute(ctx context.Context, mig *Migration) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go m.heartbeat(ctx, cancel, mig.ID)
	log := m.log.With("migration_id", mig.ID, "schema_version", mig.SchemaVersion)
	log.InfoContext(ctx, "running migration", "resume_after", mig.Cursor, "takeovers", mig.Takeovers)
	err := m.indexAll(ctx, mig)
	if err == nil {
		err = m.finish(ctx, mig)
	}
	switch {
	case err == nil:
		log.InfoContext(ctx, "migration completed, version switched")
	case errors.Is(err, ErrLeaseLost):
		log.WarnContext(ctx, "migration stopped: lease lost or migration cancelled")
	default:
		log.WarnContext(ctx, "migration runner stopped", "err", err)
	}
}

// heartbeat extends the lease every third of its TTL; losing it cancels the run.
func (m *Migrator) heartbeat(ctx context.Context, cancel context.CancelFunc, id string) {
	tick := time.NewTicker(m.cfg.LeaseTTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := m.store.Heartbeat(ctx, id, m.holder, m.cfg.LeaseTTL)
		if errors.Is(err, ErrLeaseLost) {
			cancel()
			return
		}
		if err != nil && ctx.Err() == nil {
			m.log.WarnContext(ctx, "migration heartbeat failed", "migration_id", id, "err", err)
		}
	}
}

// indexAll indexes every Servico after the cursor, batch by batch in id order.
func (m *Migrator) indexAll(ctx context.Context, mig *Migration) error {
	cursor := mig.Cursor
	for {
		var batch []Servico
		var seqs []int64
		err := m.retry(ctx, func() (err error) {
			batch, seqs, err = m.store.MigrationBatch(ctx, cursor, m.cfg.BatchSize)
			return err
		})
		if err != nil || len(batch) == 0 {
			return err
		}
		last := batch[len(batch)-1].ID
		if err := m.indexBatch(ctx, mig, batch, seqs, last); err != nil {
			return err
		}
		cursor = last
	}
}

// finish re-indexes any Servico still without a target document (one
// changed while its batch was written) and switches the version.
func (m *Migrator) finish(ctx context.Context, mig *Migration) error {
	for {
		var batch []Servico
		var seqs []int64
		err := m.retry(ctx, func() (err error) {
			batch, seqs, err = m.store.MissingDocuments(ctx, mig.SchemaVersion, m.cfg.BatchSize)
			return err
		})
		if err != nil {
			return err
		}
		if len(batch) > 0 {
			if err := m.indexBatch(ctx, mig, batch, seqs, ""); err != nil {
				return err
			}
			continue
		}
		var missing int64
		err = m.retry(ctx, func() (err error) {
			missing, err = m.store.SwitchVersion(ctx, mig.ID, m.holder)
			return err
		})
		if err != nil || missing == 0 {
			return err
		}
	}
}

// indexBatch builds the target documents of batch and writes them.
func (m *Migrator) indexBatch(ctx context.Context, mig *Migration, batch []Servico, seqs []int64, cursor string) error {
	docs := make([]BatchDocument, len(batch))
	for i := range batch {
		doc, err := buildDocument(ctx, m.schemas, m.embedder, m.log, &batch[i], mig.SchemaVersion)
		if err != nil {
			return err
		}
		docs[i] = BatchDocument{ServicoID: batch[i].ID, Seq: seqs[i], Doc: doc}
	}
	read := len(batch)
	if cursor == "" {
		read = 0 // a catch-up pass re-indexes what was already counted
	}
	p := Progress{MigrationID: mig.ID, Holder: m.holder, Cursor: cursor, Read: read}
	return m.retry(ctx, func() error { return m.store.IndexBatch(ctx, p, docs, m.cfg.LeaseTTL) })
}

// retry calls fn until it succeeds, the lease is lost or ctx is done,
// pausing RetryDelay after each failure.
func (m *Migrator) retry(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if err == nil || errors.Is(err, ErrLeaseLost) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("migration interrupted: %w", ctx.Err())
		}
		m.log.WarnContext(ctx, "migration step failed, retrying", "err", err, "retry_in", m.cfg.RetryDelay.String())
		select {
		case <-ctx.Done():
			return fmt.Errorf("migration interrupted: %w", ctx.Err())
		case <-time.After(m.cfg.RetryDelay):
		}
	}
}
