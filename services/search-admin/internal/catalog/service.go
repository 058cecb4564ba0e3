package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Service runs the admin operations on the catalog: it validates entries,
// builds their search documents for the current schema version, embeds them
// and stores everything through the Store.
type Service struct {
	store    Store
	schemas  *Registry
	embedder Embedder
	log      *slog.Logger
	now      func() time.Time
}

// NewService wires a Service.
func NewService(store Store, schemas *Registry, embedder Embedder, log *slog.Logger) *Service {
	return &Service{store: store, schemas: schemas, embedder: embedder, log: log, now: time.Now}
}

// Create validates in (adding violations to v) and stores a new Servico by
// autor. An embedding failure does not fail the create: the document is
// stored as pending and the re-embed worker completes it.
func (s *Service) Create(ctx context.Context, in Input, v *problem.Violations, autor string) (*Servico, error) {
	sv := in.Servico(v)
	if err := v.Err(); err != nil {
		return nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, fmt.Errorf("new servico id: %w", err)
	}
	now := s.now().Unix()
	sv.ID, sv.Autor, sv.CreatedAt, sv.LastUpdate = id.String(), autor, now, now
	if sv.Status == StatusPublished {
		sv.publish(now)
	}
	docs, err := s.documents(ctx, sv)
	if err != nil {
		return nil, err
	}
	if err := s.store.Create(ctx, sv, docs); err != nil {
		return nil, fmt.Errorf("create servico: %w", err)
	}
	sv.AttachDocument(docs[0])
	return sv, nil
}

// Replace validates in and replaces every member of the Servico id with it,
// keeping its id, autor, created_at and (when in has none) published_at.
func (s *Service) Replace(ctx context.Context, id string, in Input, v *problem.Violations) (*Servico, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	next := in.Servico(v)
	if err := v.Err(); err != nil {
		return nil, err
	}
	docs, err := s.documents(ctx, next)
	if err != nil {
		return nil, err
	}
	now := s.now().Unix()
	sv, err := s.store.Update(ctx, id, func(cur *Servico) {
		kept := *cur
		*cur = *next
		cur.ID, cur.Autor, cur.CreatedAt, cur.LastUpdate = kept.ID, kept.Autor, kept.CreatedAt, now
		if cur.PublishedAt == nil {
			cur.PublishedAt = kept.PublishedAt
		}
		if cur.Status == StatusPublished {
			cur.publish(now)
		}
	}, docs)
	if err != nil {
		return nil, fmt.Errorf("replace servico: %w", err)
	}
	sv.AttachDocument(docs[0])
	return sv, nil
}

// Get returns the Servico id with its current search document.
func (s *Service) Get(ctx context.Context, id string) (*Servico, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	return s.store.Get(ctx, id)
}

// List returns the page of Servicos f selects, drafts included.
func (s *Service) List(ctx context.Context, f Filter) (Page, error) {
	return s.store.List(ctx, f)
}

// Delete removes the Servico id.
func (s *Service) Delete(ctx context.Context, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	return s.store.Delete(ctx, id)
}

// SetStatus publishes (stamping published_at when unset) or unpublishes the
// Servico id. The search documents do not depend on the status.
func (s *Service) SetStatus(ctx context.Context, id string, status int) (*Servico, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	now := s.now().Unix()
	_, err := s.store.Update(ctx, id, func(cur *Servico) {
		cur.LastUpdate = now
		cur.Status = status
		if status == StatusPublished {
			cur.publish(now)
		}
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("set servico status: %w", err)
	}
	return s.store.Get(ctx, id)
}

// documents builds and embeds the search document of sv in the current
// schema version; an embedding failure leaves it pending.
func (s *Service) documents(ctx context.Context, sv *Servico) ([]Document, error) {
	version, err := s.store.CurrentVersion(ctx)
	if err != nil {
		return nil, err
	}
	schema, ok := s.schemas.Get(version)
	if !ok {
		return nil, fmt.Errorf("current search schema %q is not defined in this build", version)
	}
	doc := schema.Document(sv)
	vec, err := s.embedder.Embed(ctx, doc.Content, schema.Dimensions)
	if err != nil {
		s.log.WarnContext(ctx, "embedding failed, stored as pending", "schema_version", version, "err", err)
		doc.Pending, doc.LastError = true, truncate(err.Error(), maxErrorText)
		return []Document{doc}, nil
	}
	doc.Embedding, doc.Model = vec, s.embedder.Model()
	return []Document{doc}, nil
}

// checkID answers 404 for an id that cannot name a Servico.
func checkID(id string) error {
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return problem.Errorf(problem.ENOTFOUND, "servico %q does not exist", truncate(id, 64))
	}
	return nil
}

// maxErrorText bounds the provider error kept with a pending document.
const maxErrorText = 500

// truncate bounds text echoed in an error detail or stored from an error.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
