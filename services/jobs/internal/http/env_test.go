package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/sethvargo/go-envconfig"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/services/jobs/internal/app"
	jobshttp "github.com/municipal-apis/platform/services/jobs/internal/http"
	"github.com/municipal-apis/platform/services/jobs/migrations"
)

// maxBody is the body limit of the handler under test.
const maxBody = 64 << 10

// env is the whole service, started by app.New as cmd/jobs starts it, on a
// fresh database, with a real identity provider.
type env struct {
	t      testing.TB
	h      http.Handler
	db     *gorm.DB
	idp    *devidptest.IdP
	mu     sync.Mutex
	tokens map[string]string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, nil)
}

// newEnvWith is newEnv with some settings of the environment changed.
func newEnvWith(t testing.TB, settings map[string]string) *env {
	t.Helper()
	idp := devidptest.Start(t)
	dsn := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet)
	vars := map[string]string{
		"HTTP_ADDR":               "127.0.0.1:0",
		"ADMIN_ADDR":              "127.0.0.1:0",
		"HTTP_MAX_BODY_BYTES":     strconv.Itoa(maxBody),
		"DATABASE_URL":            dsn,
		"DATABASE_MAX_OPEN_CONNS": "10",
		"DATABASE_MAX_IDLE_CONNS": "5",
		"OIDC_ISSUER_URL":         idp.Issuer(),
	}
	maps.Copy(vars, settings)
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(vars))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	a, err := app.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	db, err := pg.Open(context.Background(), pg.Config{URL: dsn, MaxOpenConns: 2, MaxIdleConns: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close(db) })
	return &env{t: t, h: a.Handler(), db: db, idp: idp, tokens: map[string]string{}}
}

// token returns a real access token of client, fetched once per env.
func (e *env) token(client string) string {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if tok, ok := e.tokens[client]; ok {
		return tok
	}
	tok := e.idp.Token(e.t, client)
	e.tokens[client] = tok
	return tok
}

// response is what the handler answered.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// decode unmarshals the body into v.
func (r response) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// object decodes the body into a generic JSON object.
func (r response) object(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.decode(t, &m)
	return m
}

// fields lists the field of every violation of a problem body.
func (r response) fields(t testing.TB) []string {
	t.Helper()
	var p struct {
		Errors []struct{ Field string } `json:"errors"`
	}
	r.decode(t, &p)
	out := make([]string, len(p.Errors))
	for i, fe := range p.Errors {
		out[i] = fe.Field
	}
	return out
}

// do sends a request as client ("" for none) with body: nil, a string or
// []byte sent as is, or any value encoded as JSON. The response is checked
// against the OpenAPI document.
func (e *env) do(method, path, client string, body any) response {
	e.t.Helper()
	return e.send(e.request(method, path, client, body))
}

// request builds the request that do sends.
func (e *env) request(method, path, client string, body any) *http.Request {
	e.t.Helper()
	req := httptest.NewRequest(method, path, bodyReader(e.t, body))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if client != "" {
		req.Header.Set("Authorization", "Bearer "+e.token(client))
	}
	return req
}

// send serves req and checks the response against the OpenAPI document.
func (e *env) send(req *http.Request) response {
	e.t.Helper()
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	res := response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	checkSpec(e.t, req, res)
	return res
}

func bodyReader(t testing.TB, body any) io.Reader {
	switch b := body.(type) {
	case nil:
		return nil
	case string:
		return strings.NewReader(b)
	case []byte:
		return bytes.NewReader(b)
	}
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatalf("encode body: %v", err)
	}
	return bytes.NewReader(data)
}

var (
	specOnce   sync.Once
	specRouter routers.Router
	specErr    error
)

// router loads the served OpenAPI document once, validates it and routes by path.
func router() (routers.Router, error) {
	specOnce.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(jobshttp.OpenAPI)
		if err != nil {
			specErr = err
			return
		}
		if specErr = doc.Validate(context.Background()); specErr != nil {
			return
		}
		doc.Servers = nil // match paths whatever the host of the test request
		specRouter, specErr = legacy.NewRouter(doc)
	})
	return specRouter, specErr
}

// checkSpec fails t when res is not a response the OpenAPI document allows
// for req. Paths the document does not describe (unknown routes, and paths
// with a trailing slash, which the service does not serve but the document
// router would match) are skipped only when the answer is the generic 404 or 405.
func checkSpec(t testing.TB, req *http.Request, res response) {
	t.Helper()
	r, err := router()
	if err != nil {
		t.Fatalf("openapi document: %v", err)
	}
	route, params, err := r.FindRoute(req)
	if err == nil && strings.HasSuffix(req.URL.Path, "/") {
		err = errors.New("a trailing slash names no resource")
	}
	if err != nil {
		if res.Status != http.StatusNotFound && res.Status != http.StatusMethodNotAllowed {
			t.Errorf("%s %s answered %d but the OpenAPI document has no such operation: %v", req.Method, req.URL.Path, res.Status, err)
		}
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}},
		Status:  res.Status,
		Header:  res.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(res.Body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s → %d does not match the OpenAPI document: %v\nbody: %s", req.Method, req.URL.Path, res.Status, err, res.Body)
	}
}
