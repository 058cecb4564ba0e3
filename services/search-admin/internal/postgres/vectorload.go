package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

var _ catalog.VectorSource = (*Store)(nil)

// selectVectors reads every Servico (drafts too, for the fingerprint) with
// the embedding of its document in version $1, when it is ready, and the
// document's tsvector as text (parseTSVector), for keyword candidates and
// their ranking, also while the embedding is pending.
const selectVectors = `
SELECT s.id::text, s.change_seq, s.status = 1, COALESCE(s.agents -> 'exclusive_for_agents' = 'true'::jsonb, false),
       s.tema_geral, s.orgao_gestor, CASE WHEN NOT d.embedding_pending THEN d.embedding END, d.document::text
FROM servicos s
LEFT JOIN search_documents d ON d.servico_id = s.id AND d.schema_version = $1`

// LoadVectors implements catalog.VectorSource.
func (s *Store) LoadVectors(ctx context.Context) (string, []catalog.VectorEntry, error) {
	return s.loadVectors(ctx, selectVectors)
}

// LoadVectorsOf implements catalog.VectorSource.
func (s *Store) LoadVectorsOf(ctx context.Context, ids []string) (string, []catalog.VectorEntry, error) {
	return s.loadVectors(ctx, selectVectors+` WHERE s.id = ANY($2::uuid[])`, ids)
}

func (s *Store) loadVectors(ctx context.Context, query string, args ...any) (string, []catalog.VectorEntry, error) {
	var version string
	var entries []catalog.VectorEntry
	err := readSnapshot(ctx, s.db, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT current_version FROM search_settings`).Scan(&version); err != nil {
			return fmt.Errorf("read current version: %w", err)
		}
		rows, err := tx.Query(ctx, query, append([]any{version}, args...)...)
		if err != nil {
			return fmt.Errorf("query vectors: %w", err)
		}
		entries, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (catalog.VectorEntry, error) {
			var e catalog.VectorEntry
			var document *string
			err := row.Scan(&e.ID, &e.Seq, &e.Published, &e.AgentOnly, &e.TemaGeral, &e.OrgaoGestor, &e.Embedding, &document)
			if err != nil || document == nil {
				return e, err
			}
			if e.Lexemes, err = parseTSVector(*document); err != nil {
				err = fmt.Errorf("servico %s: %w", e.ID, err)
			}
			return e, err
		})
		return err
	})
	if err != nil {
		return "", nil, mapError(fmt.Errorf("load vectors: %w", err))
	}
	return version, entries, nil
}

// VectorFingerprint implements catalog.VectorSource.
func (s *Store) VectorFingerprint(ctx context.Context) (catalog.Fingerprint, error) {
	var f catalog.Fingerprint
	err := s.db.WithContext(ctx).Raw(`SELECT (SELECT current_version FROM search_settings), count(*), COALESCE(sum(change_seq), 0)::bigint
FROM servicos`).Row().Scan(&f.Version, &f.Count, &f.SeqSum)
	if err != nil {
		return f, mapError(fmt.Errorf("read catalog fingerprint: %w", err))
	}
	return f, nil
}

// ChangesChannel is the NOTIFY channel of catalog changes: a Servico id, or
// catalog.AllChanged when the current version changes.
const ChangesChannel = "search_catalog"

// ListenChanges implements catalog.VectorSource on a pooled connection held
// for as long as it listens.
func (s *Store) ListenChanges(ctx context.Context, ready func(), changed func(id string)) error {
	return withConn(ctx, s.db, func(conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, "LISTEN "+ChangesChannel); err != nil {
			return fmt.Errorf("listen: %w", err)
		}
		defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "UNLISTEN *") }()
		ready()
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				return fmt.Errorf("wait for notification: %w", err)
			}
			changed(n.Payload)
		}
	})
}
