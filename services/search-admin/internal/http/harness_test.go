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
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	searchadmin "github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/internal/postgres"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// testApp is one replica of the service, started by app.New as
// cmd/search-admin starts it, with a pool of the test's own on its database.
type testApp struct {
	t       testing.TB
	app     *searchadmin.App
	handler http.Handler
	db      *gorm.DB
	store   *postgres.Store
	idp     *devidptest.IdP
	tokens  map[string]string

	index *catalog.VectorIndex
	sync  *catalog.VectorSync
}

var quiet = slog.New(slog.DiscardHandler)

// adminAutor is the autor of entries written with catalog-admin's token: a
// client-credentials token carries Keycloak's preferred_username
// "service-account-<client>", which docs/decisions.md#search-catalog ranks before the client id.
const adminAutor = "service-account-catalog-admin"

// newApp starts the service on a fresh database with the hash provider.
func newApp(t testing.TB) *testApp {
	t.Helper()
	return newAppOn(t, pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t), embedding.Hash{})
}

// openDB opens the test's own small pool on dsn, closed when t ends.
func openDB(t testing.TB, dsn string) *gorm.DB {
	t.Helper()
	db, err := pg.Open(context.Background(), pg.Config{URL: dsn, MaxOpenConns: 2, MaxIdleConns: 1, ConnMaxLifetime: time.Minute, ConnMaxIdleTime: time.Minute}, nil)
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	t.Cleanup(func() { _ = pg.Close(db) })
	return db
}

// indexRecheck is the vector sync's fingerprint recheck period in tests.
const indexRecheck = 500 * time.Millisecond

// testEnv is the environment of a replica in tests: short leases and polls
// so takeovers happen within a test, quick index rechecks.
func testEnv(dsn string, idp *devidptest.IdP) map[string]string {
	return map[string]string{
		"HTTP_ADDR":                   "127.0.0.1:0",
		"ADMIN_ADDR":                  "127.0.0.1:0",
		"DATABASE_URL":                dsn,
		"DATABASE_MAX_OPEN_CONNS":     "10",
		"DATABASE_MAX_IDLE_CONNS":     "2",
		"DATABASE_CONN_MAX_LIFETIME":  "1m",
		"DATABASE_CONN_MAX_IDLE_TIME": "1m",
		"OIDC_ISSUER_URL":             idp.Issuer(),
		"SEARCH_INDEX_RECHECK":        indexRecheck.String(),
		"REINDEX_LEASE_TTL":           "1500ms",
		"REINDEX_POLL_INTERVAL":       "100ms",
		"REINDEX_BATCH_SIZE":          "250",
		"REINDEX_RETRY_DELAY":         "100ms",
	}
}

// newAppOn starts a replica on the database dsn, trusting idp and
// embedding with emb; it runs, background work included, until t ends.
func newAppOn(t testing.TB, dsn string, idp *devidptest.IdP, emb catalog.Embedder, adjust ...func(*searchadmin.Config)) *testApp {
	t.Helper()
	app := wireApp(t, dsn, idp, emb, "replica-"+t.Name(), adjust...)
	app.runBackground(context.Background())
	return app
}

// wireApp builds a replica named holder without running it: its handler
// answers, its background work waits for runBackground.
func wireApp(t testing.TB, dsn string, idp *devidptest.IdP, emb catalog.Embedder, holder string, adjust ...func(*searchadmin.Config)) *testApp {
	t.Helper()
	cfg, err := searchadmin.LoadConfig(context.Background(), envconfig.MapLookuper(testEnv(dsn, idp)))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger, cfg.Embedder, cfg.LeaseHolder = quiet, emb, holder
	for _, f := range adjust {
		f(&cfg)
	}
	a, err := searchadmin.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("start search-admin: %v", err)
	}
	t.Cleanup(func() { _ = a.Close() })
	db := openDB(t, dsn)
	app := &testApp{t: t, app: a, handler: a.Handler(), db: db, store: postgres.New(db), idp: idp, tokens: map[string]string{},
		index: a.VectorIndex(), sync: a.VectorSync()}
	for _, client := range []string{"catalog-admin", "reader", "jobs-admin"} {
		app.tokens[client] = idp.Token(t, client)
	}
	return app
}

// runBackground runs the replica (its server, re-embed worker, vector sync,
// re-indexing runner and key sweeper) until parent is done or the test
// ends, and returns a function that stops it and waits until it has (as a
// dying replica would).
func (a *testApp) runBackground(parent context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go func() { defer close(done); _ = a.app.Run(ctx) }()
	stop = func() { cancel(); <-done }
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

// newAppPublishing starts the service as newApp does, publishes each of
// servicos (changes to validServico) and waits until search holds them all.
func newAppPublishing(t *testing.T, servicos ...map[string]any) *testApp {
	t.Helper()
	app := newApp(t)
	for _, s := range servicos {
		app.publish(t, s)
	}
	app.waitForVectors(t, len(servicos))
	return app
}
