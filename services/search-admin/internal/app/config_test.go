package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/services/search-admin/internal/app"
)

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HTTP.Addr != ":8081" || cfg.DB.URL != "postgres://postgres@127.0.0.1:5432/search_admin?sslmode=disable" {
		t.Errorf("addr %q, database %q", cfg.HTTP.Addr, cfg.DB.URL)
	}
	if cfg.Embedding.Provider != "hash" || cfg.Embedding.Timeout != 10*time.Second || cfg.Reembed.Batch != 16 || cfg.OIDC.Audience != "api-gateway" {
		t.Errorf("embedding %+v, reembed %+v, oidc %+v", cfg.Embedding, cfg.Reembed, cfg.OIDC)
	}
	if cfg.Reindex.LeaseTTL != 15*time.Second || cfg.Reindex.BatchSize != 500 || cfg.Search.Candidates != 200 ||
		cfg.Search.MinSimilarity != 0.2 || cfg.Search.SemanticWeight != nil || cfg.Index.Recheck != 2*time.Second {
		t.Errorf("re-index %+v, search %+v, index %+v", cfg.Reindex, cfg.Search, cfg.Index)
	}
}

func TestConfigReadsTheEnvironment(t *testing.T) {
	t.Parallel()
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"HTTP_ADDR": "127.0.0.1:9999", "EMBEDDING_PROVIDER": "openai", "EMBEDDING_WORKER_INTERVAL": "250ms",
		"OIDC_JWKS_REFRESH_INTERVAL": "1m", "OIDC_CLOCK_SKEW": "5s", "SEARCH_SEMANTIC_WEIGHT": "0.35",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HTTP.Addr != "127.0.0.1:9999" || cfg.Embedding.Provider != "openai" || cfg.Reembed.Interval != 250*time.Millisecond ||
		cfg.OIDC.RefreshInterval != time.Minute || cfg.OIDC.ClockSkew != 5*time.Second ||
		cfg.Search.SemanticWeight == nil || *cfg.Search.SemanticWeight != 0.35 {
		t.Errorf("environment ignored: %+v", cfg)
	}
}

func TestConfigRefusesSettingsThatCannotWork(t *testing.T) {
	t.Parallel()
	tests := map[string]map[string]string{
		"a zero worker batch is refused":            {"EMBEDDING_WORKER_BATCH": "0"},
		"a backoff cap below its base is refused":   {"EMBEDDING_BACKOFF_BASE": "1m", "EMBEDDING_BACKOFF_MAX": "1s"},
		"a duration that does not parse is refused": {"EMBEDDING_TIMEOUT": "soon"},
		"a non-positive body limit is refused":      {"HTTP_MAX_BODY_BYTES": "0"},
		"a zero re-index batch is refused":          {"REINDEX_BATCH_SIZE": "0"},
		"a re-index lease of 1s is refused":         {"REINDEX_LEASE_TTL": "1s"},
		"a similarity above one is refused":         {"SEARCH_MIN_SIMILARITY": "1.5"},
		"a negative semantic weight is refused":     {"SEARCH_SEMANTIC_WEIGHT": "-0.1"},
		// NaN fails every comparison, and so passed the range checks:
		// every default-mode search then answered an empty 200.
		"a semantic weight that is no number is refused": {"SEARCH_SEMANTIC_WEIGHT": "NaN"},
		"a similarity that is no number is refused":      {"SEARCH_MIN_SIMILARITY": "NaN"},
		"a log level nobody knows is refused":            {"LOG_LEVEL": "verbose"},
		"a log format nobody knows is refused":           {"LOG_FORMAT": "xml"},
		"a zero index recheck period is refused":         {"SEARCH_INDEX_RECHECK": "0s"},
		"a negative token lifetime is refused":           {"OIDC_MAX_TOKEN_LIFETIME": "-1h"},
		"a JWKS URL of another scheme is refused":        {"OIDC_JWKS_URL": "file:///etc/jwks.json"},
	}
	for name, env := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(env)); err == nil {
				t.Error("configuration accepted")
			}
		})
	}
}
