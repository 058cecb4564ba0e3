package idempotency_test

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/server"
)

//go:embed testdata/*.sql
var testdata embed.FS

// maxBody is the body limit of the handler under test.
const maxBody = 4 << 10

// harness is a small service guarded by the middleware: real tokens, a real
// database built from the program's set plus idempotency.MigrationSet.
type harness struct {
	t     testing.TB
	h     http.Handler
	db    *gorm.DB
	keys  *idempotency.Keys
	idp   *devidptest.IdP
	runs  atomic.Int64  // handler executions, every route
	fails atomic.Int64  // answers of /flaky that are still to fail
	gate  chan struct{} // /slow waits for it
	mu    sync.Mutex
	toks  map[string]string
}

func newHarness(t testing.TB, cfg idempotency.Config) *harness {
	t.Helper()
	return newHarnessOn(t, cfg, testURL(t))
}

// testURL returns a fresh database with the tables of the tests.
func testURL(t testing.TB) string {
	t.Helper()
	sub, err := fs.Sub(testdata, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	return pgtest.NewURL(t, sub, idempotency.MigrationSet)
}

// newHarnessOn is newHarness on the database at dsn.
func newHarnessOn(t testing.TB, cfg idempotency.Config, dsn string) *harness {
	t.Helper()
	return newHarnessWith(t, cfg, pg.Config{URL: dsn, MaxOpenConns: 10, MaxIdleConns: 5, ConnMaxLifetime: time.Minute, ConnMaxIdleTime: time.Minute})
}

// newHarnessWith is newHarness on the database and pool of db.
func newHarnessWith(t testing.TB, cfg idempotency.Config, dbc pg.Config) *harness {
	t.Helper()
	db, err := pg.Open(context.Background(), dbc, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close(db) })
	keys, err := idempotency.New(db, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	x := &harness{t: t, db: db, keys: keys, idp: devidptest.Start(t), gate: make(chan struct{}), toks: map[string]string{}}
	engine := server.NewGin()
	api := engine.Group("/", auth.Middleware(x.idp.Verifier(t)))
	x.routes(api, keys.Wrap)
	x.h = server.Handler(server.Options{Logger: slog.New(slog.DiscardHandler), Metrics: server.NewMetrics(), MaxBodyBytes: maxBody, App: engine})
	return x
}

// routes registers the handlers of the tests, each made safe to retry by wrap.
func (x *harness) routes(api *gin.RouterGroup, wrap func(gin.HandlerFunc) gin.HandlerFunc) {
	handle := func(method, path string, h gin.HandlerFunc) {
		api.Handle(method, path, wrap(func(c *gin.Context) { x.runs.Add(1); h(c) }))
	}
	handle(http.MethodPost, "/things", x.createThing)
	handle(http.MethodGet, "/things", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"runs": x.runs.Load()}) })
	handle(http.MethodPost, "/echo", func(c *gin.Context) {
		body, _ := c.GetRawData()
		c.Data(http.StatusOK, "application/octet-stream", body)
	})
	handle(http.MethodPost, "/flaky", func(c *gin.Context) {
		if x.fails.Add(-1) >= 0 {
			problem.Abort(c, problem.Errorf(problem.EUNAVAILABLE, "try again"))
			return
		}
		x.createThing(c)
	})
	handle(http.MethodPost, "/panics", func(c *gin.Context) {
		if x.fails.Add(-1) >= 0 {
			panic("handler bug")
		}
		x.createThing(c)
	})
	handle(http.MethodPost, "/slow", func(c *gin.Context) { <-x.gate; x.createThing(c) })
	handle(http.MethodPost, "/unguarded", x.createThingInOneStatement)
}

// createThing stores {"name": ...} and answers 201 with its Location, or a
// 422 when name is blank. It writes as the services do, through pg.Tx with
// the request's context, and answers what MapError makes of a failure.
func (x *harness) createThing(c *gin.Context) {
	var in struct {
		Name string `json:"name"`
	}
	var v problem.Violations
	if err := problem.DecodeJSON(c.Request, &in, &v); err != nil {
		problem.Abort(c, err)
		return
	}
	if strings.TrimSpace(in.Name) == "" {
		v.Add("name", "required", "is required")
	}
	if err := v.Err(); err != nil {
		problem.Abort(c, err)
		return
	}
	var id int64
	err := pg.Tx(c.Request.Context(), x.db, func(tx *gorm.DB) error {
		return tx.Raw(`INSERT INTO things (name) VALUES (?) RETURNING id`, in.Name).Scan(&id).Error
	})
	if err != nil {
		problem.Abort(c, pg.MapError(err, nil))
		return
	}
	c.Header("Location", "/things/"+strconv.FormatInt(id, 10))
	c.JSON(http.StatusCreated, gin.H{"id": id, "name": in.Name})
}

// createThingInOneStatement stores {"name": ...} with one statement outside
// a transaction of its own, a blank name as NULL, which the table refuses.
func (x *harness) createThingInOneStatement(c *gin.Context) {
	var in struct {
		Name string `json:"name"`
	}
	var v problem.Violations
	if err := problem.DecodeJSON(c.Request, &in, &v); err != nil {
		problem.Abort(c, err)
		return
	}
	var name *string
	if strings.TrimSpace(in.Name) != "" {
		name = &in.Name
	}
	if err := pg.Conn(c.Request.Context(), x.db).Exec(`INSERT INTO things (name) VALUES (?)`, name).Error; err != nil {
		problem.Abort(c, pg.MapError(err, nil))
		return
	}
	c.JSON(http.StatusCreated, gin.H{"name": in.Name})
}

// token returns a real access token of client, fetched once.
func (x *harness) token(client string) string {
	x.t.Helper()
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.toks[client]; !ok {
		x.toks[client] = x.idp.Token(x.t, client)
	}
	return x.toks[client]
}

// request builds a JSON request of client, with one Idempotency-Key header
// line per key.
func (x *harness) request(method, path, client, body string, keys ...string) *http.Request {
	x.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+x.token(client))
	for _, k := range keys {
		req.Header.Add(idempotency.Header, k)
	}
	return req
}

// send serves req.
func (x *harness) send(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	x.h.ServeHTTP(rec, req)
	return rec
}

// post sends a POST of body to path as client with key ("" for none).
func (x *harness) post(path, client, key, body string) *httptest.ResponseRecorder {
	x.t.Helper()
	if key == "" {
		return x.send(x.request(http.MethodPost, path, client, body))
	}
	return x.send(x.request(http.MethodPost, path, client, body, key))
}

// rows counts the rows of table.
func (x *harness) rows(table string) int64 {
	x.t.Helper()
	var n int64
	if err := x.db.Table(table).Count(&n).Error; err != nil {
		x.t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// expect fails the test when rec.Code is not want.
func expect(t testing.TB, rec *httptest.ResponseRecorder, want int) {
	t.Helper()
	if rec.Code != want {
		t.Fatalf("status = %d, want %d; body %s", rec.Code, want, rec.Body)
	}
}

// violation returns the field and code of the only error of a problem body.
func violation(t testing.TB, rec *httptest.ResponseRecorder) (field, code string) {
	t.Helper()
	var p problem.Body
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || len(p.Errors) != 1 {
		t.Fatalf("want one violation, got %s (%v)", rec.Body, err)
	}
	return p.Errors[0].Field, p.Errors[0].Code
}
