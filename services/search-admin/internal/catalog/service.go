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
// builds and embeds their search documents for every version writes index
// (docs/decisions.md#search-catalog) and stores everything through the Store.
type Service struct {
	store    Store
	schemas  *Registry
	embedder Embedder
	index    Refresher
	log      *slog.Logger
	now      func() time.Time
}

// Refresher brings the replica's in-memory index up to date with the
// stored state of some Servicos now; *VectorSync is one.
type Refresher interface {
	Refresh(ctx context.Context, ids ...string) error
}

// NewService wires a Service; after each write it refreshes index (when
// not nil) with the Servico written, so this replica's searches see a
// write as soon as it is answered (see refresh).
func NewService(store Store, schemas *Registry, embedder Embedder, index Refresher, log *slog.Logger) *Service {
	return &Service{store: store, schemas: schemas, embedder: embedder, index: index, log: log, now: time.Now}
}

// refresh brings the replica's index up to date with the Servico id just
// written, instead of when its change notification arrives (milliseconds
// later), so whoever wrote it finds it by the next search. A failure does
// not fail the write: the notification, or the fingerprint recheck, still
// brings the change.
func (s *Service) refresh(ctx context.Context, id string) {
	if s.index == nil {
		return
	}
	if err := s.index.Refresh(ctx, id); err != nil {
		s.log.WarnContext(ctx, "refresh the search index after a write", "servico_id", id, "err", err)
	}
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
	var docs []Document
	index, err := s.indexer(ctx, sv, &docs)
	if err != nil {
		return nil, err
	}
	if err := s.store.Create(ctx, sv, index); err != nil {
		return nil, fmt.Errorf("create servico: %w", err)
	}
	s.refresh(ctx, sv.ID)
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
	var docs []Document
	index, err := s.indexer(ctx, next, &docs)
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
	}, index)
	if err != nil {
		return nil, fmt.Errorf("replace servico: %w", err)
	}
	s.refresh(ctx, id)
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
	if err := s.store.Delete(ctx, id); err != nil {
		return err
	}
	s.refresh(ctx, id)
	return nil
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
	s.refresh(ctx, id)
	return s.store.Get(ctx, id)
}

// indexer embeds the documents of sv for the versions writes index now and
// returns the Indexer the store calls inside its transaction: it reuses them
// and builds any version a re-index added meanwhile. *used receives the
// documents written, the current version's first.
func (s *Service) indexer(ctx context.Context, sv *Servico, used *[]Document) (Indexer, error) {
	versions, err := s.store.WriteVersions(ctx)
	if err != nil {
		return nil, err
	}
	ready := map[string]Document{}
	for _, v := range versions.All() {
		if ready[v], err = s.document(ctx, sv, v); err != nil {
			return nil, err
		}
	}
	return func(locked WriteVersions) ([]Document, error) {
		docs := make([]Document, 0, 3)
		for _, v := range locked.All() {
			doc, ok := ready[v]
			if !ok {
				if doc, err = s.document(ctx, sv, v); err != nil {
					return nil, err
				}
			}
			docs = append(docs, doc)
		}
		*used = docs
		return docs, nil
	}, nil
}

// document builds and embeds the search document of sv in version.
func (s *Service) document(ctx context.Context, sv *Servico, version string) (Document, error) {
	return buildDocument(ctx, s.schemas, s.embedder, s.log, sv, version)
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
