package app

import (
	"context"
	"errors"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/service"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
)

// Defaults of the shared variables whose default differs per program.
var Defaults = map[string]string{
	"HTTP_ADDR":         ":8081",
	"ADMIN_ADDR":        ":9091",
	"DATABASE_URL":      "postgres://postgres@127.0.0.1:5432/search_admin?sslmode=disable",
	"OTEL_SERVICE_NAME": "search-admin",
}

// Config is every setting of search-admin, read once from the environment.
type Config struct {
	// Config holds the settings every service shares.
	service.Config
	Embedding embedding.Config
	Reembed   catalog.ReembedConfig
	Search    catalog.SearchConfig
	Index     catalog.VectorSyncConfig
	Reindex   catalog.ReindexConfig

	// Embedder and LeaseHolder are not read from the environment.
	// Embedder computes the embeddings; nil means the provider Embedding selects.
	Embedder catalog.Embedder
	// LeaseHolder names this replica in re-indexing leases; empty means
	// its host name and process id.
	LeaseHolder string
}

// LoadConfig reads the configuration from l (the environment in
// production), with the search-admin defaults, and validates it.
func LoadConfig(ctx context.Context, l envconfig.Lookuper) (Config, error) {
	var cfg Config
	err := program.LoadConfig(ctx, l, Defaults, &cfg)
	return cfg, err
}

// Validate reports settings that cannot work.
func (c Config) Validate() error {
	return errors.Join(c.Config.Validate(), c.Reembed.Validate(), c.Search.Validate(), c.Index.Validate(), c.Reindex.Validate())
}
