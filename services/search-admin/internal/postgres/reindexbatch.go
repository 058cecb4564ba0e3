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

// indexBatch is IndexBatch in one statement. It locks the run's row if the
// run is still held under the lease; takes the batch's Servicos whose
// change_seq is still the one their documents were built from, skipping
// (SKIP LOCKED) any a writer holds right now, since that writer indexes
// it, or else the pass over missing documents does; writes their
// documents; and records the cursor with progress counted in the same
// snapshot: processed is how many Servicos of the catalog lie at or before
// the cursor, total how many there are, so processed never exceeds total.
// The embeddings come as one flat array, dimensions floats per document.
var indexBatch = `
WITH lease AS (
    SELECT id FROM search_migrations WHERE ` + heldBy + ` FOR UPDATE
), input AS (
    SELECT * FROM unnest(@ids::uuid[], @seqs::bigint[], @contents::text[], @a::text[], @b::text[], @c::text[], @d::text[],
        @models::text[], @pending::boolean[], @errors::text[])
        WITH ORDINALITY AS i(servico_id, seq, content, a, b, c, d, model, pending, error, n)
), unchanged AS (
    SELECT s.id FROM servicos s JOIN input i ON i.servico_id = s.id AND i.seq = s.change_seq
    WHERE EXISTS (SELECT FROM lease)
    ORDER BY s.id
    FOR SHARE OF s SKIP LOCKED
), written AS (
    INSERT INTO search_documents (` + documentColumns + `)
    SELECT i.servico_id, @version, i.content, ` + weightedDocument("i.a", "i.b", "i.c", "i.d", "@stem_accents::boolean") + `,
        CASE WHEN NOT i.pending THEN (@embeddings::float4[])[(i.n - 1) * @dimensions + 1 : i.n * @dimensions] END,
        i.model, i.pending, 0, CASE WHEN i.pending THEN now() END, NULLIF(i.error, ''), now()
    FROM input i JOIN unchanged u ON u.id = i.servico_id
    ORDER BY i.servico_id
    ` + replaceDocument + `
    RETURNING 1
), progress AS (
    UPDATE search_migrations r SET cursor_id = COALESCE(@cursor::uuid, r.cursor_id),
        processed = (SELECT count(*) FROM servicos WHERE id <= COALESCE(@cursor::uuid, r.cursor_id)),
        total = (SELECT count(*) FROM servicos),
        lease_expires_at = now() + make_interval(secs => @lease), updated_at = now(), progressed_at = now()
    FROM lease WHERE r.id = lease.id
    RETURNING 1
)
SELECT EXISTS (SELECT FROM progress), (SELECT count(*) FROM written)`

// IndexBatch implements catalog.ReindexStore.
func (s *Store) IndexBatch(ctx context.Context, p catalog.Progress, docs []catalog.BatchDocument, lease time.Duration) error {
	args, err := batchArgs(docs)
	if err != nil {
		return err
	}
	var cursor any
	if p.Cursor != "" {
		cursor = p.Cursor
	}
	args = leaseArgs(p.Lease, args)
	args["cursor"], args["lease"] = cursor, lease.Seconds()
	var held bool
	var written int64
	err = withConn(ctx, s.db, func(conn *pgx.Conn) error {
		return conn.QueryRow(ctx, indexBatch, pgx.NamedArgs(args)).Scan(&held, &written)
	})
	switch {
	case err != nil:
		return mapError(fmt.Errorf("write re-index batch: %w", err))
	case !held:
		return catalog.ErrLeaseLost
	}
	return nil
}

// batchArgs lays docs out as the arrays indexBatch reads, one element per
// document; every embedding takes the same number of floats, zeros for a
// pending document.
func batchArgs(docs []catalog.BatchDocument) (map[string]any, error) {
	n := len(docs)
	ids, seqs, contents := make([]string, n), make([]int64, n), make([]string, n)
	weighted := [4][]string{make([]string, n), make([]string, n), make([]string, n), make([]string, n)}
	models, pending, errs := make([]string, n), make([]bool, n), make([]string, n)
	version, stemAccents, dims := "", false, 0
	for _, d := range docs {
		version, stemAccents = d.Doc.SchemaVersion, d.Doc.StemAccents
		if !d.Doc.Pending {
			dims = len(d.Doc.Embedding)
		}
	}
	embeddings := make([]float32, 0, n*dims)
	for i, d := range docs {
		if d.Doc.SchemaVersion != version || d.Doc.StemAccents != stemAccents || (!d.Doc.Pending && len(d.Doc.Embedding) != dims) {
			return nil, fmt.Errorf("re-index batch mixes versions or dimensions at servico %s", d.ServicoID)
		}
		ids[i], seqs[i], contents[i] = d.ServicoID, d.Seq, d.Doc.Content
		for w := range weighted {
			weighted[w][i] = d.Doc.Weighted[w]
		}
		models[i], pending[i], errs[i] = d.Doc.Model, d.Doc.Pending, d.Doc.LastError
		if d.Doc.Pending {
			embeddings = append(embeddings, make([]float32, dims)...)
		} else {
			embeddings = append(embeddings, d.Doc.Embedding...)
		}
	}
	return map[string]any{
		"ids": ids, "seqs": seqs, "contents": contents, "version": version, "stem_accents": stemAccents,
		"a": weighted[0], "b": weighted[1], "c": weighted[2], "d": weighted[3],
		"models": models, "pending": pending, "errors": errs, "embeddings": embeddings, "dimensions": dims,
	}, nil
}
