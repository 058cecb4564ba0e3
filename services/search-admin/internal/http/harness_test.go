package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	apihttp "github.com/municipal-apis/platform/services/search-admin/internal/http"
	"github.com/municipal-apis/platform/services/search-admin/internal/postgres"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// testApp is one running instance of the service on a database of its own.
type testApp struct {
	t       testing.TB
	handler http.Handler
	db      *gorm.DB
	store   *postgres.Store
	idp     *devidptest.IdP
	tokens  map[string]string

	index     *catalog.VectorIndex
	sync      *catalog.VectorSync
	reindexer *catalog.Reindexer
}

var quiet = slog.New(slog.DiscardHandler)

// adminAutor is the autor of entries written with catalog-admin's token: a
// client-credentials token carries Keycloak's preferred_username
// "service-account-<client>", which docs/decisions.md#search-catalog ranks before the client id.
const adminAutor = "service-account-catalog-admin"

// newApp starts the service on a fresh database with the hash provider.
func newApp(t testing.TB) *testApp {
	t.Helper()
	return newAppOn(t, openDB(t, pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet)), devidptest.Start(t), embedding.Hash{})
}

// openDB opens a pool on dsn, closed when t ends.
func openDB(t testing.TB, dsn string) *gorm.DB {
	t.Helper()
	db, err := pg.Open(context.Background(), pg.Config{URL: dsn, MaxOpenConns: 10, MaxIdleConns: 5, ConnMaxLifetime: time.Minute, ConnMaxIdleTime: time.Minute}, nil)
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	t.Cleanup(func() { _ = pg.Close(db) })
	return db
}

// testConfig holds the tunables tests use: short leases and polls so
// takeovers happen within a test, quick index rechecks.
var testConfig = struct {
	search  catalog.SearchConfig
	sync    catalog.VectorSyncConfig
	reindex catalog.ReindexConfig
}{
	search:  catalog.SearchConfig{MinSimilarity: 0.2, Candidates: 200},
	sync:    catalog.VectorSyncConfig{Recheck: 500 * time.Millisecond, MaxTargeted: 500},
	reindex: catalog.ReindexConfig{LeaseTTL: 1500 * time.Millisecond, Poll: 100 * time.Millisecond, BatchSize: 250, RetryDelay: 100 * time.Millisecond},
}

// newAppOn wires the service the way serve does, on db, trusting idp and
// embedding with emb; its vector sync and re-index runner run until t ends.
func newAppOn(t testing.TB, db *gorm.DB, idp *devidptest.IdP, emb catalog.Embedder) *testApp {
	t.Helper()
	app := wireApp(t, db, idp, emb, "replica-"+t.Name())
	app.runBackground(context.Background())
	return app
}

// wireApp builds an instance without starting its background loops.
func wireApp(t testing.TB, db *gorm.DB, idp *devidptest.IdP, emb catalog.Embedder, holder string) *testApp {
	t.Helper()
	store, schemas := postgres.New(db), catalog.DefaultRegistry()
	index := catalog.NewVectorIndex()
	vsync := catalog.NewVectorSync(index, store, schemas, testConfig.sync, quiet)
	if err := vsync.LoadAll(context.Background()); err != nil {
		t.Fatalf("load vectors: %v", err)
	}
	reindexer := catalog.NewReindexer(store, schemas, emb, testConfig.reindex, holder, quiet)
	keys, err := idempotency.New(db, idempotency.Config{}, quiet)
	if err != nil {
		t.Fatalf("idempotency keys: %v", err)
	}
	engine := server.NewGin()
	apihttp.Routes(engine, apihttp.API{
		Catalog:   catalog.NewService(store, schemas, emb, quiet),
		Search:    catalog.NewSearcher(store, index, vsync, schemas, emb, testConfig.search, quiet),
		Reindexer: reindexer, Verifier: idp.Verifier(t), Idempotency: keys.Middleware(),
	})
	h := server.Handler(server.Options{Logger: quiet, Metrics: server.NewMetrics(), App: engine, MaxBodyBytes: 1 << 20})
	app := &testApp{t: t, handler: h, db: db, store: store, idp: idp, tokens: map[string]string{},
		index: index, sync: vsync, reindexer: reindexer}
	for _, client := range []string{"catalog-admin", "reader", "jobs-admin"} {
		app.tokens[client] = idp.Token(t, client)
	}
	return app
}

// runBackground runs the vector sync and the re-index runner until parent
// is done or the test ends, and returns a function that stops them and
// waits until they have (as a dying replica would).
func (a *testApp) runBackground(parent context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(parent)
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.sync.Run(ctx) })
	wg.Go(func() { _ = a.reindexer.Run(ctx) })
	stop = func() { cancel(); wg.Wait() }
	a.t.Cleanup(stop)
	return stop
}

// token returns the access token of a dev realm client fetched at start, so
// parallel subtests only read the map.
func (a *testApp) token(client string) string {
	tok, ok := a.tokens[client]
	if !ok {
		panic("no token fetched for client " + client)
	}
	return tok
}

// response is a recorded answer.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// do sends a request as client ("" for no token) with a JSON body (nil for none).
func (a *testApp) do(method, path, client string, body any) response {
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			panic("encode test body: " + err.Error())
		}
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(raw))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if client != "" {
		req.Header.Set("Authorization", "Bearer "+a.token(client))
	}
	return a.serve(req)
}

func (a *testApp) serve(req *http.Request) response {
	rec := httptest.NewRecorder()
	a.handler.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return response{Status: rec.Code, Header: rec.Header(), Body: b}
}

// servico decodes a Servico answer, failing unless the status is want.
func (r response) servico(t testing.TB, want int) catalog.Servico {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status = %d, want %d; body %s", r.Status, want, r.Body)
	}
	var s catalog.Servico
	if err := json.Unmarshal(r.Body, &s); err != nil {
		t.Fatalf("decode servico: %v; body %s", err, r.Body)
	}
	return s
}

// problemBody is an RFC 9457 error answer.
type problemBody struct {
	Status int `json:"status"`
	Errors []struct {
		Field string `json:"field"`
		Code  string `json:"code"`
	} `json:"errors"`
}

func (r response) problem(t testing.TB) problemBody {
	t.Helper()
	var p problemBody
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatalf("decode problem: %v; body %s", err, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type = %q, want application/problem+json", ct)
	}
	return p
}

// validServico returns a request body that satisfies table 2.7 of the API document.
func validServico() map[string]any {
	return map[string]any{
		"nome_servico":       "Emissão de 2ª via do IPTU",
		"orgao_gestor":       []string{"Secretaria Municipal de Fazenda"},
		"publico_especifico": []string{"Proprietários de imóveis"},
		"resumo":             "Solicite a segunda via da guia do IPTU.",
		"tema_geral":         "Tributos",
	}
}

// with returns a copy of validServico with member set to value (or removed
// when value is the remove sentinel).
func with(changes map[string]any) map[string]any {
	b := validServico()
	for k, v := range changes {
		if v == remove {
			delete(b, k)
			continue
		}
		b[k] = v
	}
	return b
}

type sentinel struct{}

var remove = sentinel{}

func newRequest(method, path, body string) *http.Request {
	return httptest.NewRequest(method, path, strings.NewReader(body))
}
