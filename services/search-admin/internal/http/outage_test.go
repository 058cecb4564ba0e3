package http_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/polltest"
	searchadmin "github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// flakyProvider is an OpenAI-compatible embeddings server that answers 503
// while down, and unit vectors of the requested dimension otherwise.
func flakyProvider(t *testing.T, down *atomic.Bool) catalog.Embedder {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Dimensions int `json:"dimensions"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		vec := make([]float32, req.Dimensions)
		vec[0] = 1
		_ = json.NewEncoder(w).Encode(map[string]any{"data": []any{map[string]any{"index": 0, "embedding": vec}}})
	}))
	t.Cleanup(srv.Close)
	p, err := embedding.New(embedding.Config{Provider: "openai", URL: srv.URL, Timeout: time.Second, MaxRetries: 1, RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fastReembed makes a replica's re-embed worker poll and retry within milliseconds.
func fastReembed(cfg *searchadmin.Config) {
	cfg.Reembed = catalog.ReembedConfig{Interval: 20 * time.Millisecond, Batch: 8, Lease: 5 * time.Second,
		BackoffBase: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond}
}

// attempts reads the failed embedding attempts of the Servico id.
func attempts(app *testApp, id string) (n int, pending bool) {
	row := app.db.Raw("SELECT embed_attempts, embedding_pending FROM search_documents WHERE servico_id = ?", id).Row()
	_ = row.Scan(&n, &pending)
	return n, pending
}

func TestAProviderOutageLosesNoWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: an embedding provider outage; skipped under -short")
	}
	t.Parallel()
	var down atomic.Bool
	down.Store(true)
	emb := flakyProvider(t, &down)
	app := newAppOn(t, pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t), emb, fastReembed)
	sv := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico()).servico(t, http.StatusCreated)
	if sv.EmbeddingStatus != catalog.EmbeddingPending || sv.Embedding != nil || sv.SearchContent == "" {
		t.Fatalf("create during the outage: status %q, %d dimensions, content %q", sv.EmbeddingStatus, len(sv.Embedding), sv.SearchContent)
	}
	polltest.Until(t, 10*time.Second, "the worker has failed at least twice", func() bool { n, _ := attempts(app, sv.ID); return n >= 2 })
	down.Store(false)
	path := "/api/v1/admin/services/" + sv.ID
	polltest.Until(t, 10*time.Second, "the embedding is complete", func() bool {
		return app.do(http.MethodGet, path, "reader", nil).servico(t, http.StatusOK).EmbeddingStatus == catalog.EmbeddingReady
	})
	got := app.do(http.MethodGet, path, "reader", nil).servico(t, http.StatusOK)
	if len(got.Embedding) != catalog.SchemaV2.Dimensions || got.Embedding[0] != 1 {
		t.Errorf("completed embedding has %d dimensions", len(got.Embedding))
	}
}

func TestPendingEmbeddingsSurviveARestart(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: a provider outage across a restart; skipped under -short")
	}
	t.Parallel()
	var down atomic.Bool
	down.Store(true)
	emb := flakyProvider(t, &down)
	dsn := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet)
	idp := devidptest.Start(t)

	first := wireApp(t, dsn, idp, emb, "replica-first", fastReembed)
	stopFirst := first.runBackground(context.Background())
	sv := first.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico()).servico(t, http.StatusCreated)
	polltest.Until(t, 10*time.Second, "the first instance's worker has failed", func() bool { n, _ := attempts(first, sv.ID); return n >= 1 })
	stopFirst()
	down.Store(false)
	if _, pending := attempts(first, sv.ID); !pending {
		t.Fatal("the document completed before the restart")
	}

	second := newAppOn(t, dsn, idp, emb, fastReembed)
	polltest.Until(t, 10*time.Second, "the restarted instance completes the embedding", func() bool {
		_, pending := attempts(second, sv.ID)
		return !pending
	})
	got := second.do(http.MethodGet, "/api/v1/admin/services/"+sv.ID, "reader", nil).servico(t, http.StatusOK)
	if got.EmbeddingStatus != catalog.EmbeddingReady || len(got.Embedding) != catalog.SchemaV2.Dimensions {
		t.Errorf("after the restart: status %q, %d dimensions", got.EmbeddingStatus, len(got.Embedding))
	}
}
