package catalog

import (
	"context"
	"time"
)

// Filter selects a page of Servicos in the admin list.
type Filter struct {
	Status           *int
	TemaGeral        string
	OrgaoGestor      string
	AwaitingApproval *bool
	IsFree           *bool
	// Text matches nome_servico or resumo, ignoring case and accents.
	Text    string
	Page    int
	PerPage int
}

// Page is one page of a list.
type Page struct {
	Data  []Servico
	Total int64
}

// PendingDocument is a search document whose embedding is still missing,
// claimed by the re-embed worker.
type PendingDocument struct {
	ServicoID     string
	SchemaVersion string
	Content       string
	Attempts      int
}

// Store persists Servicos with their search documents. Every method that
// writes both does so in one transaction.
type Store interface {
	// CurrentVersion reads the search-schema version search uses now.
	CurrentVersion(ctx context.Context) (string, error)
	// WriteVersions reads the versions a write must index now.
	WriteVersions(ctx context.Context) (WriteVersions, error)
	// Create inserts s and the documents index builds for the versions read
	// inside the transaction.
	Create(ctx context.Context, s *Servico, index Indexer) error
	// Get returns the Servico id with the document of the current version.
	Get(ctx context.Context, id string) (*Servico, error)
	// List returns the page of Servicos f selects, newest first, without documents.
	List(ctx context.Context, f Filter) (Page, error)
	// Update locks the Servico id, lets change modify it, saves it and
	// replaces the documents index builds (nil: documents stay as they are).
	Update(ctx context.Context, id string, change func(*Servico), index Indexer) (*Servico, error)
	// Delete removes the Servico id and its documents.
	Delete(ctx context.Context, id string) error
	// ClaimPending leases up to limit pending documents whose retry time has
	// come, so that no other worker takes them until lease has passed.
	ClaimPending(ctx context.Context, limit int, lease time.Duration) ([]PendingDocument, error)
	// CompleteEmbedding stores the embedding of d unless its content changed meanwhile.
	CompleteEmbedding(ctx context.Context, d PendingDocument, embedding []float32, model string) error
	// RetryEmbedding records a failed attempt on d and schedules the next one after delay.
	RetryEmbedding(ctx context.Context, d PendingDocument, delay time.Duration, cause string) error
}

// Embedder turns text into an embedding of the given dimension.
type Embedder interface {
	Embed(ctx context.Context, text string, dims int) ([]float32, error)
	// Model names the provider and model, e.g. "openai/text-embedding-3-small".
	Model() string
}
