package idempotency_test

import (
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

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
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
	sub, err := fs.Sub(testdata, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	db := pgtest.NewDB(t, sub, idempotency.MigrationSet)
	keys, err := idempotency.New(db, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	x := &harness{t: t, db: db, keys: keys, idp: devidptest.Start(t), gate: make(chan struct{}), toks: map[string]string{}}
	engine := server.NewGin()
	api := engine.Group("/", auth.Middleware(x.idp.Verifier(t)))
	x.routes(api, keys.Middleware())
	x.h = server.Handler(server.Options{Logger: slog.New(slog.DiscardHandler), Metrics: server.NewMetrics(), MaxBodyBytes: maxBody, App: engine})
	return x
}

// routes registers the handlers of the tests behind idem.
func (x *harness) routes(api *gin.RouterGroup, idem gin.HandlerFunc) {
	api.POST("/things", idem, x.count, x.createThing)
	api.GET("/things", idem, x.count, func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"runs": x.runs.Load()}) })
	api.POST("/echo", idem, x.count, func(c *gin.Context) {
		body, _ := c.GetRawData()
		c.Data(http.StatusOK, "application/octet-stream", body)
	})
	api.POST("/flaky", idem, x.count, func(c *gin.Context) {
		if x.fails.Add(-1) >= 0 {
			problem.Abort(c, problem.Errorf(problem.EUNAVAILABLE, "try again"))
			return
		}
		x.createThing(c)
	})
	api.POST("/panics", idem, x.count, func(c *gin.Context) {
		if x.fails.Add(-1) >= 0 {
			panic("handler bug")
		}
		x.createThing(c)
	})
	api.POST("/slow", idem, x.count, func(c *gin.Context) { <-x.gate; x.createThing(c) })
	api.POST("/slowfail", idem, x.count, func(c *gin.Context) {
		<-x.gate
		problem.Abort(c, problem.Errorf(problem.EUNAVAILABLE, "try again"))
	})
}

func (x *harness) count(*gin.Context) { x.runs.Add(1) }

// createThing stores {"name": ...} and answers 201 with its Location, or a
// 422 when name is blank.
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
	if err := x.db.Raw(`INSERT INTO things (name) VALUES (?) RETURNING id`, in.Name).Scan(&id).Error; err != nil {
		problem.Abort(c, err)
		return
	}
	c.Header("Location", "/things/"+strconv.FormatInt(id, 10))
	c.JSON(http.StatusCreated, gin.H{"id": id, "name": in.Name})
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
