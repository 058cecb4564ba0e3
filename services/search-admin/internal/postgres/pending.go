package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// claimPending leases due pending documents by moving their next attempt to
// the end of the lease; SKIP LOCKED lets concurrent workers take disjoint sets.
const claimPending = `
UPDATE search_documents d
SET next_attempt_at = now() + make_interval(secs => @lease)
FROM (
    SELECT servico_id, schema_version FROM search_documents
    WHERE embedding_pending AND next_attempt_at <= now()
    ORDER BY next_attempt_at
    LIMIT @limit
    FOR UPDATE SKIP LOCKED
) c
WHERE d.servico_id = c.servico_id AND d.schema_version = c.schema_version
RETURNING d.servico_id, d.schema_version, d.search_content, d.embed_attempts`

// ClaimPending implements catalog.Store.
func (s *Store) ClaimPending(ctx context.Context, limit int, lease time.Duration) ([]catalog.PendingDocument, error) {
	var rows []struct {
		ServicoID     string
		SchemaVersion string
		SearchContent string
		EmbedAttempts int
	}
	err := pg.Conn(ctx, s.db).Raw(claimPending, map[string]any{"lease": lease.Seconds(), "limit": limit}).Scan(&rows).Error
	if err != nil {
		return nil, mapError(fmt.Errorf("claim pending documents: %w", err))
	}
	out := make([]catalog.PendingDocument, len(rows))
	for i, r := range rows {
		out[i] = catalog.PendingDocument{ServicoID: r.ServicoID, SchemaVersion: r.SchemaVersion, Content: r.SearchContent, Attempts: r.EmbedAttempts}
	}
	return out, nil
}

// samePending matches a claimed document only while it is still pending with
// the content that was embedded: an update in between wins.
const samePending = ` WHERE servico_id = @id AND schema_version = @version AND search_content = @content AND embedding_pending`

// completeEmbedding stores an embedding in one statement: it touches the
// Servico first (servico before document, the lock order of every write) so
// that its change_seq moves and replicas reload its vector, then fills the
// document if it is still pending with the content that was embedded. One
// statement, so a worker stopped at any moment holds no lock a writer needs.
const completeEmbedding = `
WITH touched AS (
    UPDATE servicos SET change_seq = change_seq WHERE id = @id RETURNING id
)
UPDATE search_documents SET embedding = @embedding, embedding_model = @model,
    embedding_pending = false, next_attempt_at = NULL, last_error = NULL, updated_at = now()
WHERE servico_id = (SELECT id FROM touched) AND schema_version = @version AND search_content = @content AND embedding_pending`

// CompleteEmbedding implements catalog.Store.
func (s *Store) CompleteEmbedding(ctx context.Context, d catalog.PendingDocument, embedding []float32, model string) error {
	err := pg.Conn(ctx, s.db).Exec(completeEmbedding, pendingArgs(d, map[string]any{"embedding": vector(embedding), "model": model})).Error
	return mapError(err)
}

// RetryEmbedding implements catalog.Store.
func (s *Store) RetryEmbedding(ctx context.Context, d catalog.PendingDocument, delay time.Duration, cause string) error {
	err := pg.Conn(ctx, s.db).Exec(`UPDATE search_documents SET embed_attempts = embed_attempts + 1,
    next_attempt_at = now() + make_interval(secs => @delay), last_error = @cause, updated_at = now()`+samePending,
		pendingArgs(d, map[string]any{"delay": delay.Seconds(), "cause": cause})).Error
	return mapError(err)
}

func pendingArgs(d catalog.PendingDocument, args map[string]any) map[string]any {
	args["id"], args["version"], args["content"] = d.ServicoID, d.SchemaVersion, d.Content
	return args
}
