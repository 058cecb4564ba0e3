package http_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/server"
	searchadmin "github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// post sends a create of body as catalog-admin with the given headers.
func (a *testApp) post(t testing.TB, body map[string]any, header map[string]string) response {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/admin/services", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+a.token("catalog-admin"))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return a.serve(req)
}

func (a *testApp) countServicos(t testing.TB) int64 {
	t.Helper()
	var n int64
	if err := a.db.Table("servicos").Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func TestARetriedCreateWithAnIdempotencyKeyStoresOneServico(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	key := map[string]string{idempotency.Header: "create-iptu-1"}
	first := app.post(t, validServico(), key)
	created := first.servico(t, http.StatusCreated)
	replay := app.post(t, validServico(), key)
	if replay.servico(t, http.StatusCreated).ID != created.ID || replay.Header.Get("Location") != first.Header.Get("Location") {
		t.Fatalf("replay answered %s (Location %q), want the first answer %s", replay.Body, replay.Header.Get("Location"), first.Body)
	}
	if replay.Header.Get(idempotency.ReplayedHeader) != "true" {
		t.Errorf("replay lacks %s: true", idempotency.ReplayedHeader)
	}
	if n := app.countServicos(t); n != 1 {
		t.Fatalf("%d servicos stored, want 1", n)
	}

	other := with(map[string]any{"resumo": "Outro resumo"})
	if res := app.post(t, other, key); res.Status != http.StatusUnprocessableEntity || res.problem(t).Errors[0].Code != "reused" {
		t.Fatalf("same key, other body: status %d %s, want 422 reused", res.Status, res.Body)
	}
	if n := app.countServicos(t); n != 1 {
		t.Fatalf("a reused key stored another servico: %d", n)
	}
}

func TestLocationCarriesTheGatewayPrefix(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	tests := []struct{ name, prefix, want string }{
		{"behind the gateway the Location starts with its prefix", "/search", "/search/api/v1/admin/services/"},
		{"called directly the Location is the service path", "", "/api/v1/admin/services/"},
		{"a hostile prefix is ignored", "//evil.example", "/api/v1/admin/services/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := map[string]string{}
			if tt.prefix != "" {
				header[server.ForwardedPrefixHeader] = tt.prefix
			}
			res := app.post(t, validServico(), header)
			sv := res.servico(t, http.StatusCreated)
			if got := res.Header.Get("Location"); got != tt.want+sv.ID {
				t.Fatalf("Location = %q, want %q", got, tt.want+sv.ID)
			}
		})
	}
}

// Writes with an Idempotency-Key run inside the transaction that stores the
// key, and refreshed the replica's search index from there, on a second
// connection of the pool: once as many such writes held every connection,
// each waited for one more until its statement bound ran out, one after the
// other (a review saw writes hang 30 s after Postgres came back). The
// refresh now runs after the commit: twelve concurrent writes on a pool of
// three all answer, and each is found by the next search.
func TestConcurrentIdempotentWritesDoNotWaitForASecondConnection(t *testing.T) {
	t.Parallel()
	dsn, idp := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t)
	app := newAppOn(t, dsn, idp, embedding.Hash{}, func(c *searchadmin.Config) { c.DB.MaxOpenConns, c.DB.MaxIdleConns = 3, 3 })
	const n = 12
	type result struct {
		resp response
		name string
	}
	results := make(chan result, n)
	for i := range n {
		go func() {
			name := fmt.Sprintf("Zqxpool serviço %d", i)
			results <- result{app.post(t, with(map[string]any{"nome_servico": name, "status": catalog.StatusPublished}),
				map[string]string{"Idempotency-Key": fmt.Sprintf("pool-%d", i)}), name}
		}()
	}
	guard := time.After(20 * time.Second) // the old chain of 6 s bounds took over a minute
	for range n {
		select {
		case r := <-results:
			if r.resp.Status != http.StatusCreated {
				t.Errorf("%s: %d %s", r.name, r.resp.Status, r.resp.Body)
			}
		case <-guard:
			t.Fatal("concurrent idempotent writes on a pool of three still wait after 20 s")
		}
	}
	if page := app.searchPage(t, url.Values{"q": {"zqxpool"}, "mode": {catalog.ModeKeyword}, "per_page": {"20"}}); page.Meta.Total != n {
		t.Errorf("search finds %d of the %d writes", page.Meta.Total, n)
	}
}
