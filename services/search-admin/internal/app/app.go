// Package app puts search-admin together: its Config, read from the
// environment, and New, which opens what every service opens (pkg/service:
// database, token verifier, idempotency keys, listener) and the embedding
// provider, and wires the catalog, the search, the vector index and its
// sync, the re-embed worker and the re-indexing runner into the HTTP
// handler. cmd/search-admin and the
// service's tests start it the same way, through New.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/pkg/service"
	"github.com/municipal-apis/platform/pkg/version"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	apihttp "github.com/municipal-apis/platform/services/search-admin/internal/http"
	"github.com/municipal-apis/platform/services/search-admin/internal/lexicon"
	"github.com/municipal-apis/platform/services/search-admin/internal/postgres"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// MigrationSets are the schema of the service and that of its idempotency
// keys, in the order the migrate command applies them.
var MigrationSets = []pg.Set{{FS: migrations.FS, Owner: "search-admin"}, idempotency.MigrationSet}

// App is a wired search-admin replica listening on its address; Addr and
// Close come from its service.Base.
type App struct {
	*service.Base
	cfg       Config
	embedder  catalog.Embedder
	index     *catalog.VectorIndex
	vectors   *catalog.VectorSync
	reembed   *catalog.Reembedder
	reindexer *catalog.Reindexer
	backlog   *catalog.BacklogMetrics
	handler   http.Handler
}

// New opens the service's base, loads the vector index (so the first
// search does not wait for it) and wires the replica on it; nothing is
// served until Run. The embedding provider is not contacted: it may come
// up later.
func New(ctx context.Context, cfg Config) (a *App, err error) {
	a = &App{cfg: cfg, embedder: cfg.Embedder}
	if a.cfg.LeaseHolder == "" {
		a.cfg.LeaseHolder = leaseHolder()
	}
	if a.embedder == nil {
		if a.embedder, err = embedding.New(cfg.Embedding); err != nil {
			return nil, fmt.Errorf("embedding provider: %w", err)
		}
	}
	if cfg.Search.SemanticWeight == nil {
		w := embedding.SemanticWeight(cfg.Embedding.Provider)
		a.cfg.Search.SemanticWeight = &w
	}
	if a.Base, err = service.Open(ctx, cfg.Config, MigrationSets); err != nil {
		return nil, err
	}
	if err := a.wire(ctx); err != nil {
		return nil, errors.Join(err, a.Close())
	}
	return a, nil
}

// wire builds the domain services on the database, loads the vector index
// and puts the handler together.
func (a *App) wire(ctx context.Context) error {
	cfg, logger := a.cfg, a.Logger
	// Every embedding call is a span when tracing is on.
	a.embedder = embedding.Traced(a.embedder, a.Tracing.Provider)
	store, schemas := postgres.New(a.DB), catalog.DefaultRegistry()
	a.index = catalog.NewVectorIndex()
	a.vectors = catalog.NewVectorSync(a.index, store, schemas, cfg.Index, logger)
	if err := a.vectors.LoadAll(ctx); err != nil {
		serr := a.SchemaCurrent(ctx)
		if serr == nil {
			return err
		}
		// Not migrated yet (a pod started beside its migration, or before
		// it): serve not ready, as /readyz says; the vector sync, which
		// Serve starts once the schema is current, loads the index then.
		logger.WarnContext(ctx, "vector index not loaded: the database is not migrated; run migrate", "err", serr)
	}
	a.reembed = catalog.NewReembedder(store, schemas, a.embedder, cfg.Reembed, logger)
	a.reindexer = catalog.NewReindexer(store, schemas, a.embedder, cfg.Reindex, cfg.LeaseHolder, logger)
	a.reembed.Trace(a.Tracing.Provider)
	a.reindexer.Trace(a.Tracing.Provider)
	backlog, err := catalog.NewBacklogMetrics(store, schemas, a.Metrics.Registry, logger)
	if err != nil {
		return err
	}
	a.backlog = backlog
	words, err := lexicon.Default()
	if err != nil {
		return err
	}
	searcher := catalog.NewSearcher(store, a.index, a.vectors, schemas, a.embedder, words, cfg.Search, logger)
	// The synonym rules are compiled now rather than by the first search,
	// which would hold every search behind it for as long (a second or so).
	// Failing here is not fatal: the first search compiles them then.
	start := time.Now()
	if n, err := searcher.WarmSynonyms(ctx); err != nil {
		logger.WarnContext(ctx, "synonym rules not compiled at start; the first search will compile them", "err", err)
	} else {
		logger.InfoContext(ctx, "synonym rules compiled", "rules", n, "duration", time.Since(start).String())
	}
	engine := server.NewGin()
	apihttp.Routes(engine, apihttp.API{
		Catalog:   catalog.NewService(store, schemas, a.embedder, refreshAfterCommit{sync: a.vectors, log: logger}, logger),
		Synonyms:  catalog.NewSynonyms(store, logger),
		Search:    searcher,
		Reindexer: a.reindexer, Auth: a.Tokens, Idempotency: a.Keys.Wrap,
	})
	a.handler = server.Handler(server.Options{
		Logger: logger, Metrics: a.Metrics, App: engine, MaxBodyBytes: cfg.HTTP.MaxBodyBytes,
		Tracer: a.Tracing.Provider,
	})
	return nil
}

// leaseHolder names this process in re-indexing leases: host name and pid.
func leaseHolder() string {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	return fmt.Sprintf("%s/%d", host, os.Getpid())
}

// Handler is the service's public handler: the API, /openapi.json and
// /livez; AdminHandler serves the probes and metrics.
func (a *App) Handler() http.Handler { return a.handler }

// VectorIndex is the in-memory index this replica's searches read.
func (a *App) VectorIndex() *catalog.VectorIndex { return a.index }

// VectorSync keeps VectorIndex in step with the database.
func (a *App) VectorSync() *catalog.VectorSync { return a.vectors }

// Run serves until ctx is done, with the re-embed worker, the vector sync,
// the re-indexing runner and the backlog gauges running meanwhile (beside
// the base's key sweeper and signing-key refresh), then drains in-flight requests within
// the shutdown timeout.
func (a *App) Run(ctx context.Context) error {
	a.Logger.InfoContext(ctx, "starting search-admin", "version", version.Version, "addr", a.Addr(), "admin_addr", a.AdminAddr(),
		"embedding_model", a.embedder.Model(), "reindex_holder", a.cfg.LeaseHolder)
	return a.Serve(ctx, a.handler, a.reembed.Run, a.vectors.Run, a.reindexer.Run, a.backlog.Run)
}

// refreshAfterCommit refreshes the replica's index with a write once the
// request's transaction has committed (pg.AfterCommit): a write with an
// Idempotency-Key runs inside the transaction that stores its key, and a
// refresh there waited for a second connection of the pool while holding
// one (and could not see the uncommitted write anyway). The refresh still
// happens before the answer is sent, so whoever wrote finds the write by
// the next search on this replica.
// A refresh run at once returns its error (the Service logs it); a deferred
// one logs its own.
type refreshAfterCommit struct {
	sync *catalog.VectorSync
	log  *slog.Logger
}

func (r refreshAfterCommit) Refresh(ctx context.Context, ids ...string) error {
	inline := true
	var err error
	pg.AfterCommit(ctx, func() {
		err = r.sync.Refresh(ctx, ids...)
		if !inline && err != nil {
			r.log.WarnContext(ctx, "refresh the search index after a write", "servico_ids", ids, "err", err)
		}
	})
	inline = false
	return err
}
