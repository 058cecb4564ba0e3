package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// ReembedConfig tunes the background re-embed worker.
type ReembedConfig struct {
	// Interval is the pause between polls when there is no work.
	Interval time.Duration `env:"EMBEDDING_WORKER_INTERVAL, default=5s"`
	// Batch is the number of documents claimed at once.
	Batch int `env:"EMBEDDING_WORKER_BATCH, default=16"`
	// Lease is how long a claimed document is hidden from other workers.
	Lease time.Duration `env:"EMBEDDING_WORKER_LEASE, default=2m"`
	// BackoffBase and BackoffMax bound the delay after a failed attempt,
	// which doubles with every attempt.
	BackoffBase time.Duration `env:"EMBEDDING_BACKOFF_BASE, default=10s"`
	BackoffMax  time.Duration `env:"EMBEDDING_BACKOFF_MAX, default=10m"`
}

// Validate reports settings that cannot work.
func (c ReembedConfig) Validate() error {
	if c.Interval <= 0 || c.Batch <= 0 || c.Lease <= 0 || c.BackoffBase <= 0 || c.BackoffMax < c.BackoffBase {
		return errors.New("EMBEDDING_WORKER_* and EMBEDDING_BACKOFF_* must be positive, with BACKOFF_MAX >= BACKOFF_BASE")
	}
	return nil
}

// Reembedder completes pending embeddings in the background. Its state lives
// in Postgres, so it resumes after a restart, and claims are leased with
// FOR UPDATE SKIP LOCKED, so several replicas can run it at once.
type Reembedder struct {
	store    Store
	schemas  *Registry
	embedder Embedder
	cfg      ReembedConfig
	log      *slog.Logger
	tracer   trace.Tracer // nil: no spans
}

// NewReembedder wires a Reembedder.
func NewReembedder(store Store, schemas *Registry, embedder Embedder, cfg ReembedConfig, log *slog.Logger) *Reembedder {
	return &Reembedder{store: store, schemas: schemas, embedder: embedder, cfg: cfg, log: log}
}

// Trace makes every batch the worker claims a trace of its own through tp:
// a "re-embed" span with the embedding calls and the statements that store
// them below it. A poll that claims nothing makes no trace. Nil, the
// default, makes none.
func (r *Reembedder) Trace(tp trace.TracerProvider) { r.tracer = tracerOf(tp) }

// Run polls for pending documents until ctx is done.
func (r *Reembedder) Run(ctx context.Context) error {
	for {
		n, err := r.RunOnce(ctx)
		if err != nil && ctx.Err() == nil {
			r.log.ErrorContext(ctx, "re-embed poll failed", "err", err)
		}
		wait := r.cfg.Interval
		if err == nil && n == r.cfg.Batch {
			wait = 0
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// RunOnce claims one batch of due pending documents and tries to embed each,
// returning how many it claimed.
func (r *Reembedder) RunOnce(ctx context.Context) (int, error) {
	docs, err := r.store.ClaimPending(ctx, r.cfg.Batch, r.cfg.Lease)
	if err != nil {
		return 0, fmt.Errorf("claim pending embeddings: %w", err)
	}
	if len(docs) == 0 {
		return 0, nil
	}
	ctx, end := startSpan(r.tracer, ctx, "re-embed", attribute.Int("municipal.reembed.batch_size", len(docs)))
	var errs []error
	for _, d := range docs {
		if err := r.embed(ctx, d); err != nil {
			errs = append(errs, err)
		}
	}
	err = errors.Join(errs...)
	end(err)
	return len(docs), err
}

// embed computes and stores the embedding of d, or schedules a retry.
func (r *Reembedder) embed(ctx context.Context, d PendingDocument) error {
	schema, ok := r.schemas.Get(d.SchemaVersion)
	if !ok {
		return r.store.RetryEmbedding(ctx, d, r.cfg.BackoffMax, "schema version not defined in this build")
	}
	vec, err := r.embedder.Embed(ctx, d.Content, schema.Dimensions)
	if err != nil {
		delay := r.backoff(d.Attempts + 1)
		r.log.WarnContext(ctx, "re-embed failed", "servico_id", d.ServicoID, "schema_version", d.SchemaVersion,
			"attempt", d.Attempts+1, "retry_in", delay.String(), "err", err)
		return r.store.RetryEmbedding(ctx, d, delay, truncate(err.Error(), maxErrorText))
	}
	if err := r.store.CompleteEmbedding(ctx, d, vec, r.embedder.Model()); err != nil {
		return fmt.Errorf("store embedding of %s: %w", d.ServicoID, err)
	}
	r.log.InfoContext(ctx, "re-embedded", "servico_id", d.ServicoID, "schema_version", d.SchemaVersion)
	return nil
}

// backoff returns the delay before attempt n+1: BackoffBase doubled per
// attempt, capped at BackoffMax, with up to 20% jitter so replicas spread out.
func (r *Reembedder) backoff(attempt int) time.Duration {
	d := r.cfg.BackoffBase
	for i := 1; i < attempt && d < r.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, r.cfg.BackoffMax)
	return d - time.Duration(rand.Float64()*0.2*float64(d))
}
