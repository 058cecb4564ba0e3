package http_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// seedServicos inserts n published Servicos without search documents in one
// statement, cycling through the relevance set with a unit number, so bulk
// tests have realistic text. A re-index then builds their documents.
func seedServicos(t testing.TB, app *testApp, n int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "relevance", "servicos.json"))
	if err != nil {
		t.Fatal(err)
	}
	err = app.db.Exec(`
INSERT INTO servicos (id, nome_servico, orgao_gestor, publico_especifico, resumo, tema_geral, autor,
    descricao_completa, documentos_necessarios, status, published_at, created_at, last_update)
SELECT gen_random_uuid(), b.doc->>'nome_servico' || ' - unidade ' || g, b.doc->'orgao_gestor', b.doc->'publico_especifico',
    b.doc->>'resumo', b.doc->>'tema_geral', 'seed', b.doc->>'descricao_completa', b.doc->'documentos_necessarios',
    1, 1700000000, 1700000000, 1700000000
FROM generate_series(1, ?) g
JOIN jsonb_array_elements(CAST(? AS jsonb)) WITH ORDINALITY AS b(doc, o) ON b.o = g % 70 + 1`, n, string(raw)).Error
	if err != nil {
		t.Fatalf("seed %d servicos: %v", n, err)
	}
	if err := app.db.Exec("ANALYZE servicos").Error; err != nil {
		t.Fatal(err)
	}
}

// reindexAndWait starts a re-index to version through the API and waits
// until it is no longer running, returning the final status.
func (a *testApp) reindexAndWait(t testing.TB, version string) catalog.ReindexStatus {
	t.Helper()
	resp := a.do(http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", map[string]any{"schema_version": version})
	if resp.Status != http.StatusAccepted {
		t.Fatalf("start re-index to %s: status %d, body %s", version, resp.Status, resp.Body)
	}
	return a.waitForReindex(t, time.Minute)
}

// waitForReindex polls the store until no re-index runs.
func (a *testApp) waitForReindex(t testing.TB, limit time.Duration) catalog.ReindexStatus {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		st, err := a.store.ReindexStatus(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Reindex != nil && st.Reindex.State != catalog.ReindexRunning {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("re-index still running after %v: %+v", limit, st.Reindex)
		}
		time.Sleep(25 * time.Millisecond)
	}
}
