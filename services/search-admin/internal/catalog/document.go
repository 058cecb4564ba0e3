package catalog

import (
	"context"
	"log/slog"
)

// buildDocument builds the search document of sv in version and embeds it;
// an embedding failure leaves the document pending for the re-embed worker
// instead of failing the write.
func buildDocument(ctx context.Context, schemas *Registry, embedder Embedder, log *slog.Logger, sv *Servico, version string) (Document, error) {
	schema, err := schemas.Lookup(version)
	if err != nil {
		return Document{}, err
	}
	doc := schema.Document(sv)
	vec, err := embedder.Embed(ctx, doc.Content, schema.Dimensions)
	if err != nil {
		log.WarnContext(ctx, "embedding failed, stored as pending", "schema_version", version, "err", err)
		doc.Pending, doc.LastError = true, truncate(err.Error(), maxErrorText)
		return doc, nil
	}
	doc.Embedding, doc.Model = vec, embedder.Model()
	return doc, nil
}
