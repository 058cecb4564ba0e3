package main

import (
	"context"
	"fmt"
	"os"

	"golang.org/x/sync/errgroup"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	apihttp "github.com/municipal-apis/platform/services/search-admin/internal/http"
	"github.com/municipal-apis/platform/services/search-admin/internal/postgres"
)

// serve runs the HTTP API and the re-embed worker until ctx is done.
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
	store, schemas := postgres.New(db), catalog.DefaultRegistry()
	worker := catalog.NewReembedder(store, schemas, provider, cfg.Reembed, logger)
	engine := server.NewGin()
	apihttp.Routes(engine, catalog.NewService(store, schemas, provider, logger), verifier)
	h := server.Handler(server.Options{
		Logger: logger, Metrics: server.NewMetrics(), App: engine, MaxBodyBytes: cfg.HTTP.MaxBodyBytes,
		Checks: []server.Check{
			{Name: "postgres", Critical: true, Probe: pg.Ping(db)},
			{Name: "oidc", Critical: false, Probe: verifier.Ping},
		},
	})
	logger.InfoContext(ctx, "starting", "embedding_model", provider.Model())
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return worker.Run(ctx) })
	g.Go(func() error {
		return server.Run(ctx, server.New(cfg.HTTP, h, logger), cfg.HTTP.ShutdownTimeout, logger)
	})
	return g.Wait()
}
