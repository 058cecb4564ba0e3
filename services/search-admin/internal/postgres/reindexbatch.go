package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// servicoSeqRow is a servicos row with its change_seq.
type servicoSeqRow struct {
	Row       servicoRow `gorm:"embedded"`
	ChangeSeq int64
}

// ReindexBatch implements catalog.ReindexStore with keyset pagination.
func (s *Store) ReindexBatch(ctx context.Context, after string, limit int) ([]catalog.Servico, []int64, error) {
	if after == "" {
		after = uuid.Nil.String()
	}
	return s.servicosWithSeq(ctx, `SELECT * FROM servicos WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
}

// MissingDocuments implements catalog.ReindexStore.
func (s *Store) MissingDocuments(ctx context.Context, version string, limit int) ([]catalog.Servico, []int64, error) {
	return s.servicosWithSeq(ctx, `SELECT * FROM servicos s WHERE NOT EXISTS
    (SELECT 1 FROM search_documents d WHERE d.servico_id = s.id AND d.schema_version = ?) ORDER BY s.id LIMIT ?`, version, limit)
}

func (s *Store) servicosWithSeq(ctx context.Context, query string, args ...any) ([]catalog.Servico, []int64, error) {
	var rows []servicoSeqRow
	if err := pg.Conn(ctx, s.db).Raw(query, args...).Scan(&rows).Error; err != nil {
		return nil, nil, mapError(fmt.Errorf("read re-index batch: %w", err))
	}
	out, seqs := make([]catalog.Servico, len(rows)), make([]int64, len(rows))
	for i, r := range rows {
		out[i], seqs[i] = *r.Row.servico(), r.ChangeSeq
	}
	return out, seqs, nil
}

// recordProgress advances the re-index and extends the lease, only for
// its holder; it also locks the re-index row against a concurrent takeover.
const recordProgress = `
UPDATE search_migrations SET processed = processed + @read, cursor_id = COALESCE(@cursor::uuid, cursor_id),
    total = (SELECT count(*) FROM servicos), lease_expires_at = now() + make_interval(secs => @lease), updated_at = now()
WHERE id = @id AND lease_holder = @holder AND state = 'running'`

// IndexBatch implements catalog.ReindexStore in one transaction: it
// records progress (failing when the lease is lost), locks the Servicos of
// the batch FOR SHARE (waiting for writers in flight, blocking new ones until
// commit), and writes the documents of those whose change_seq is still the
// one they were built from. A Servico that changed was indexed by its
// writer, or is caught by the pass over missing documents.
func (s *Store) IndexBatch(ctx context.Context, p catalog.Progress, docs []catalog.BatchDocument, lease time.Duration) error {
	var cursor any
	if p.Cursor != "" {
		cursor = p.Cursor
	}
	err := withConn(ctx, s.db, func(conn *pgx.Conn) error {
		return pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{}, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, recordProgress, pgx.NamedArgs{
				"read": p.Read, "cursor": cursor, "lease": lease.Seconds(), "id": p.ReindexID, "holder": p.Holder,
			})
			if err != nil {
				return fmt.Errorf("record re-index progress: %w", err)
			}
			if tag.RowsAffected() == 0 {
				return catalog.ErrLeaseLost
			}
			seqs, err := lockServicos(ctx, tx, docs)
			if err != nil {
				return err
			}
			batch := &pgx.Batch{}
			for _, d := range docs {
				if seq, ok := seqs[d.ServicoID]; ok && seq == d.Seq {
					args := documentArgs(d.ServicoID, d.Doc)
					args["embedding"] = []float32(args["embedding"].(vector))
					batch.Queue(upsertDocument, pgx.NamedArgs(args))
				}
			}
			return tx.SendBatch(ctx, batch).Close()
		})
	})
	if err != nil && err != catalog.ErrLeaseLost {
		return mapError(fmt.Errorf("write re-index batch: %w", err))
	}
	return err
}

// lockServicos locks the Servicos of docs FOR SHARE, in id order, and
// returns their change_seq.
func lockServicos(ctx context.Context, tx pgx.Tx, docs []catalog.BatchDocument) (map[string]int64, error) {
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ServicoID
	}
	rows, err := tx.Query(ctx, `SELECT id::text, change_seq FROM servicos WHERE id = ANY($1::uuid[]) ORDER BY id FOR SHARE`, ids)
	if err != nil {
		return nil, fmt.Errorf("lock batch servicos: %w", err)
	}
	seqs := make(map[string]int64, len(ids))
	var id string
	var seq int64
	_, err = pgx.ForEachRow(rows, []any{&id, &seq}, func() error {
		seqs[id] = seq
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read batch servicos: %w", err)
	}
	return seqs, nil
}
