package postgres

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// weightedDocument is the tsvector of a search document over the texts of
// weights A to D, built by search_document (migration 00008): Portuguese
// stems of the folded text, and with stemAccents also the folded stems of
// the text as written.
func weightedDocument(a, b, c, d, stemAccents string) string {
	return fmt.Sprintf(`setweight(search_document(%[1]s, %[5]s), 'A') ||
    setweight(search_document(%[2]s, %[5]s), 'B') ||
    setweight(search_document(%[3]s, %[5]s), 'C') ||
    setweight(search_document(%[4]s, %[5]s), 'D')`, a, b, c, d, stemAccents)
}

// documentColumns are the columns every document write sets.
const documentColumns = `servico_id, schema_version, search_content, document, embedding,
    embedding_model, embedding_pending, embed_attempts, next_attempt_at, last_error, updated_at`

// replaceDocument makes an insert of a document that exists replace it.
const replaceDocument = `ON CONFLICT (servico_id, schema_version) DO UPDATE SET
    search_content = EXCLUDED.search_content, document = EXCLUDED.document,
    embedding = EXCLUDED.embedding, embedding_model = EXCLUDED.embedding_model,
    embedding_pending = EXCLUDED.embedding_pending, embed_attempts = 0,
    next_attempt_at = EXCLUDED.next_attempt_at, last_error = EXCLUDED.last_error, updated_at = now()`

// upsertDocument writes one search document; a trigger copies the
// Servico's search filters onto it (migration 00006).
var upsertDocument = `INSERT INTO search_documents (` + documentColumns + `)
VALUES (@id, @version, @content, ` + weightedDocument("@a", "@b", "@c", "@d", "@stem_accents") + `,
    @embedding, @model, @pending, 0, CASE WHEN @pending THEN now() END, NULLIF(@error, ''), now())
` + replaceDocument

// documentArgs are the named arguments of upsertDocument for d of the Servico id.
func documentArgs(id string, d catalog.Document) map[string]any {
	var emb vector
	if !d.Pending {
		emb = d.Embedding
	}
	return map[string]any{
		"id": id, "version": d.SchemaVersion, "content": d.Content,
		"stem_accents": d.StemAccents, "a": d.Weighted[0], "b": d.Weighted[1], "c": d.Weighted[2], "d": d.Weighted[3],
		"embedding": emb, "model": d.Model, "pending": d.Pending, "error": d.LastError,
	}
}

// saveDocuments writes docs of the Servico id inside tx.
func saveDocuments(tx *gorm.DB, id string, docs []catalog.Document) error {
	for _, d := range docs {
		if err := tx.Exec(upsertDocument, documentArgs(id, d)).Error; err != nil {
			return fmt.Errorf("save %s search document: %w", d.SchemaVersion, err)
		}
	}
	return nil
}
