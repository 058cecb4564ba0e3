// Package app puts search-admin together: its Config, read from the
// environment, and New, which opens the database, the token verifier and
// the embedding provider and wires the catalog, the search, the vector
// index and its sync, the re-embed worker, the re-indexing runner and the
// idempotency keys into the HTTP handler. cmd/search-admin and the
// service's tests start it the same way, through New.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"

	"golang.org/x/sync/errgroup"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/server"
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
var MigrationSets = []pg.Set{{FS: migrations.FS}, idempotency.MigrationSet}

// App is a wired search-admin replica listening on its address.
type App struct {
	cfg       Config
	logger    *slog.Logger
	db        *gorm.DB
	embedder  catalog.Embedder
	index     *catalog.VectorIndex
	vectors   *catalog.VectorSync
	reembed   *catalog.Reembedder
	reindexer *catalog.Reindexer
	keys      *idempotency.Keys
	verifier  *auth.Verifier
	handler   http.Handler
	ln        net.Listener
}

// New connects to the database, loads the vector index (so the first
// search does not wait for it), wires the service and listens on
// cfg.HTTP.Addr; nothing is served until Run. The identity provider and
// the embedding provider are not contacted: they may come up later.
func New(ctx context.Context, cfg Config) (a *App, err error) {
	a = &App{cfg: cfg, logger: cfg.Logger, embedder: cfg.Embedder}
	if a.logger == nil {
		a.logger = server.NewLogger(os.Stderr, cfg.Log)
	}
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
	if a.db, err = pg.Open(ctx, cfg.DB, a.logger); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, a.Close())
		}
	}()
	oidc := cfg.OIDC
	oidc.Logger = a.logger
	if a.verifier, err = auth.NewVerifier(oidc); err != nil {
		return nil, fmt.Errorf("token verifier: %w", err)
	}
	if a.keys, err = idempotency.New(a.db, cfg.Idempotency, a.logger); err != nil {
		return nil, fmt.Errorf("idempotency keys: %w", err)
	}
	sqlDB, err := a.db.DB()
	if err != nil {
		return nil, fmt.Errorf("database handle: %w", err)
	}
	schema, err := pg.SchemaCurrent(sqlDB, MigrationSets...)
	if err != nil {
		return nil, err
	}
	if err := a.wire(ctx, schema); err != nil {
		return nil, err
	}
	if a.ln, err = server.Listen(cfg.HTTP.Addr); err != nil {
		return nil, err
	}
	return a, nil
}

// wire builds the domain services on the database, loads the vector index
// and puts the handler together; schema is the readiness probe of the
// database's schema version.
func (a *App) wire(ctx context.Context, schema func(context.Context) error) error {
	cfg, logger := a.cfg, a.logger
	store, schemas := postgres.New(a.db), catalog.DefaultRegistry()
	a.index = catalog.NewVectorIndex()
	a.vectors = catalog.NewVectorSync(a.index, store, schemas, cfg.Index, logger)
	if err := a.vectors.LoadAll(ctx); err != nil {
		return err
	}
	a.reembed = catalog.NewReembedder(store, schemas, a.embedder, cfg.Reembed, logger)
	a.reindexer = catalog.NewReindexer(store, schemas, a.embedder, cfg.Reindex, cfg.LeaseHolder, logger)
	words, err := lexicon.Default()
	if err != nil {
		return err
	}
	engine := server.NewGin()
	apihttp.Routes(engine, apihttp.API{
		Catalog:   catalog.NewService(store, schemas, a.embedder, logger),
		Synonyms:  catalog.NewSynonyms(store, logger),
		Search:    catalog.NewSearcher(store, a.index, a.vectors, schemas, a.embedder, words, cfg.Search, logger),
		Reindexer: a.reindexer, Verifier: a.verifier, Idempotency: a.keys.Wrap,
	})
	metrics := server.NewMetrics()
	if err := metrics.Registry.Register(a.verifier.Collector()); err != nil {
		return fmt.Errorf("register signing-key metrics: %w", err)
	}
	a.handler = server.Handler(server.Options{
		Logger: logger, Metrics: metrics, App: engine, MaxBodyBytes: cfg.HTTP.MaxBodyBytes,
		Checks: []server.Check{
			{Name: "postgres", Critical: true, Probe: pg.Ping(a.db)},
			{Name: "schema", Critical: true, Probe: schema},
			// Down only before any signing key was fetched; degraded while
			// the identity provider is unreachable and the keys held still verify.
			{Name: "oidc", Critical: true, Probe: a.verifier.Ping},
		},
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

// Addr is the address the service listens on (the port chosen when
// HTTP_ADDR asked for port 0).
func (a *App) Addr() string { return a.ln.Addr().String() }

// Handler is the service's whole handler: the API, /openapi.json and the probes.
func (a *App) Handler() http.Handler { return a.handler }

// VectorIndex is the in-memory index this replica's searches read.
func (a *App) VectorIndex() *catalog.VectorIndex { return a.index }

// VectorSync keeps VectorIndex in step with the database.
func (a *App) VectorSync() *catalog.VectorSync { return a.vectors }

// Run serves until ctx is done, with the re-embed worker, the vector sync,
// the re-indexing runner, the idempotency key sweeper and the refresh of the
// signing keys running meanwhile,
// then drains in-flight requests within the shutdown timeout.
func (a *App) Run(ctx context.Context) error {
	a.logger.InfoContext(ctx, "starting search-admin", "version", version.Version, "addr", a.Addr(),
		"embedding_model", a.embedder.Model(), "reindex_holder", a.cfg.LeaseHolder)
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return a.reembed.Run(ctx) })
	g.Go(func() error { return a.vectors.Run(ctx) })
	g.Go(func() error { return a.reindexer.Run(ctx) })
	g.Go(func() error { a.keys.RunSweeper(ctx); return nil })
	g.Go(func() error { a.verifier.Run(ctx); return nil })
	g.Go(func() error {
		return server.Serve(ctx, server.New(a.cfg.HTTP, a.handler, a.logger), a.ln, a.cfg.HTTP.ShutdownTimeout, a.logger)
	})
	return g.Wait()
}

// Close stops listening, if Run has not, and closes the database pool.
func (a *App) Close() error {
	return errors.Join(server.CloseListener(a.ln), pg.Close(a.db))
}
