package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/gin-gonic/gin"
	"golang.org/x/sync/errgroup"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	apihttp "github.com/municipal-apis/platform/services/search-admin/internal/http"
	"github.com/municipal-apis/platform/services/search-admin/internal/postgres"
)

// serve runs the HTTP API, the re-embed worker, the vector sync and the
// re-index runner until ctx is done.
func serve(ctx context.Context, cfg Config) error {
	logger := server.NewLogger(os.Stderr, cfg.Log)
	db, err := pg.Open(ctx, cfg.Database, logger)
	if err != nil {
		return err
	}
	defer func() { _ = pg.Close(db) }()
	verifier, err := auth.NewVerifier(auth.Config{
		IssuerURL: cfg.OIDC.IssuerURL, JWKSURL: cfg.OIDC.JWKSURL, Audience: cfg.OIDC.Audience, Logger: logger,
	})
	if err != nil {
		return fmt.Errorf("token verifier: %w", err)
	}
	provider, err := embedding.New(cfg.Embedding)
	if err != nil {
		return fmt.Errorf("embedding provider: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return fmt.Errorf("database handle: %w", err)
	}
	schema, err := pg.SchemaCurrent(sqlDB, migrationSets...)
	if err != nil {
		return err
	}
	app, err := wire(ctx, cfg, db, provider, verifier, logger)
	if err != nil {
		return err
	}
	h := server.Handler(server.Options{
		Logger: logger, Metrics: server.NewMetrics(), App: app.engine, MaxBodyBytes: cfg.HTTP.MaxBodyBytes,
		Checks: []server.Check{
			{Name: "postgres", Critical: true, Probe: pg.Ping(db)},
			{Name: "schema", Critical: true, Probe: schema},
			{Name: "oidc", Critical: false, Probe: verifier.Ping},
		},
	})
	logger.InfoContext(ctx, "starting", "embedding_model", provider.Model(), "reindex_holder", app.holder)
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return app.reembed.Run(ctx) })
	g.Go(func() error { return app.vectors.Run(ctx) })
	g.Go(func() error { return app.reindexer.Run(ctx) })
	g.Go(func() error { app.keys.RunSweeper(ctx); return nil })
	g.Go(func() error {
		return server.Run(ctx, server.New(cfg.HTTP, h, logger), cfg.HTTP.ShutdownTimeout, logger)
	})
	return g.Wait()
}

// components are the wired parts serve runs.
type components struct {
	engine    *gin.Engine
	reembed   *catalog.Reembedder
	vectors   *catalog.VectorSync
	reindexer *catalog.Reindexer
	keys      *idempotency.Keys
	holder    string
}

// wire builds the domain services on db and loads the vector index, so the
// first search does not wait for it.
func wire(ctx context.Context, cfg Config, db *gorm.DB, provider embedding.Provider, verifier *auth.Verifier, logger *slog.Logger) (*components, error) {
	store, schemas := postgres.New(db), catalog.DefaultRegistry()
	index := catalog.NewVectorIndex()
	vectors := catalog.NewVectorSync(index, store, schemas, cfg.Index, logger)
	if err := vectors.LoadAll(ctx); err != nil {
		return nil, err
	}
	keys, err := idempotency.New(db, cfg.Idempotency, logger)
	if err != nil {
		return nil, fmt.Errorf("idempotency keys: %w", err)
	}
	holder := leaseHolder()
	reindexer := catalog.NewReindexer(store, schemas, provider, cfg.Reindex, holder, logger)
	engine := server.NewGin()
	apihttp.Routes(engine, apihttp.API{
		Catalog:   catalog.NewService(store, schemas, provider, logger),
		Search:    catalog.NewSearcher(store, index, vectors, schemas, provider, cfg.Search, logger),
		Reindexer: reindexer, Verifier: verifier, Idempotency: keys.Middleware(),
	})
	return &components{
		engine: engine, reembed: catalog.NewReembedder(store, schemas, provider, cfg.Reembed, logger),
		vectors: vectors, reindexer: reindexer, keys: keys, holder: holder,
	}, nil
}

// leaseHolder names this process in re-index leases: host name and pid.
func leaseHolder() string {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	return fmt.Sprintf("%s/%d", host, os.Getpid())
}
