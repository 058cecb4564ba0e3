package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
)

// Config is every setting of search-admin, read from the environment.
type Config struct {
	HTTP      server.Config
	Database  pg.Config
	Log       server.LogConfig
	OIDC      OIDCConfig
	Embedding embedding.Config
	Reembed   catalog.ReembedConfig
	Search    catalog.SearchConfig
	Index     catalog.VectorSyncConfig
	Reindex   catalog.ReindexConfig
	// Idempotency sets how long POST answers are replayed for a repeated Idempotency-Key.
	Idempotency idempotency.Config
}

// OIDCConfig locates the identity provider whose tokens are accepted.
type OIDCConfig struct {
	IssuerURL string `env:"OIDC_ISSUER_URL, default=http://127.0.0.1:8090/auth/realms/municipal"`
	JWKSURL   string `env:"OIDC_JWKS_URL"`
	Audience  string `env:"OIDC_AUDIENCE, default=api-gateway"`
}

// defaults fills the shared variables whose default differs per program.
var defaults = map[string]string{
	"HTTP_ADDR":    ":8081",
	"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/search_admin?sslmode=disable",
}

// loadConfig reads and validates the configuration.
func loadConfig(ctx context.Context) (Config, error) {
	return loadConfigFrom(ctx, envconfig.OsLookuper())
}

func loadConfigFrom(ctx context.Context, env envconfig.Lookuper) (Config, error) {
	var cfg Config
	err := envconfig.ProcessWith(ctx, &envconfig.Config{
		Target:   &cfg,
		Lookuper: envconfig.MultiLookuper(env, envconfig.MapLookuper(defaults)),
	})
	if err != nil {
		return cfg, fmt.Errorf("read configuration: %w", err)
	}
	return cfg, errors.Join(cfg.HTTP.Validate(), cfg.Database.Validate(), cfg.Reembed.Validate(),
		cfg.Search.Validate(), cfg.Index.Validate(), cfg.Reindex.Validate(), cfg.Idempotency.Validate())
}
