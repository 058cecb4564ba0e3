package cli_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/server"
)

// fakeAPI serves both areas from memory behind the gateway prefixes, with
// real token verification and scopes (pkg/auth against devidp), the
// platform's problem bodies, list envelope and statuses, and replays of
// POSTs that repeat an Idempotency-Key, as the services will.
type fakeAPI struct {
	idp *devidptest.IdP
	srv *httptest.Server

	mu       sync.Mutex
	items    map[string][]map[string]any // by collection
	nextID   int
	replays  map[string]stored // by client and Idempotency-Key
	throttle int               // POSTs still to answer with 429
	posts    int               // POSTs received, replays and 429s included
	onPost   func(n int)       // called under mu with the count of every POST
}

type stored struct {
	status int
	body   []byte
}

// required is the member each collection needs; nome_servico stands for
// the rules of the search area.
var required = map[string]string{
	"services": "nome_servico", "empregos": "titulo", "escolaridades": "nivel", "categorias": "nome",
	"empresas": "nome", "orgaos": "nome", "cursos": "title",
}

func newFakeAPI(t testing.TB) *fakeAPI {
	t.Helper()
	f := &fakeAPI{idp: devidptest.Start(t), items: map[string][]map[string]any{}, replays: map[string]stored{}}
	e := server.NewGin()
	g := e.Group("/", auth.Middleware(f.idp.Verifier(t)))
	search := g.Group("/search/api/v1/admin")
	search.GET("/migration/schemas", auth.RequireScope("search:migrations:read"), f.schemas)
	search.GET("/migration/status", auth.RequireScope("search:migrations:read"), f.status)
	f.routes(search, "search:services:read", "search:services:write")
	f.routes(g.Group("/go/v1/api/v1"), "jobs:read", "jobs:write")
	f.srv = httptest.NewServer(server.Handler(server.Options{
		Logger: slog.New(slog.DiscardHandler), Metrics: server.NewMetrics(), App: e, MaxBodyBytes: 1 << 20,
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) routes(g *gin.RouterGroup, read, write string) {
	g.GET("/:coll", auth.RequireScope(read), f.list)
	g.POST("/:coll", auth.RequireScope(write), f.create)
	g.GET("/:coll/:id", auth.RequireScope(read), f.get)
	g.PUT("/:coll/:id", auth.RequireScope(write), f.replace)
	g.DELETE("/:coll/:id", auth.RequireScope(write), f.delete)
}

func (f *fakeAPI) schemas(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"current_version": "v2", "available_versions": []string{"v1", "v2"}, "schemas": []gin.H{
		{"version": "v1", "description": "nome and resumo", "embedding_model": "hash", "dimensions": 256, "fields": []gin.H{{"name": "nome_servico", "weight": "A"}}},
		{"version": "v2", "description": "every text member", "embedding_model": "hash", "dimensions": 384, "fields": []gin.H{{"name": "nome_servico", "weight": "A"}, {"name": "resumo", "weight": "B"}}},
	}})
}

func (f *fakeAPI) status(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"state": "idle", "current_version": "v2"})
}

// decode reads a body and applies the collection's rules.
func decode(c *gin.Context) (map[string]any, error) {
	var in map[string]any
	data, err := io.ReadAll(c.Request.Body)
	if err != nil || json.Unmarshal(data, &in) != nil {
		return nil, problem.Errorf(problem.EMALFORMED, "the request body is not valid JSON")
	}
	var v problem.Violations
	name := required[c.Param("coll")]
	if s, _ := in[name].(string); s == "" {
		v.Add(name, "required", "is required")
	}
	if s, ok := in["resumo"].(string); ok && utf8.RuneCountInString(s) > 350 {
		v.Add("resumo", "max_length", "must be at most 350 characters")
	}
	return in, v.Err()
}

func (f *fakeAPI) create(c *gin.Context) {
	claims, _ := auth.ClaimsFrom(c.Request.Context())
	key := claims.ClientID + "\x00" + c.GetHeader("Idempotency-Key")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posts++
	if f.onPost != nil {
		f.onPost(f.posts)
	}
	if f.throttle > 0 {
		f.throttle--
		problem.Abort(c, problem.Errorf(problem.ERATELIMIT, "slow down").WithHeader("Retry-After", "0"))
		return
	}
	if s, ok := f.replays[key]; ok && c.GetHeader("Idempotency-Key") != "" {
		c.Header("Idempotent-Replayed", "true")
		c.Data(s.status, "application/json", s.body)
		return
	}
	in, err := decode(c)
	if err != nil {
		problem.Abort(c, err)
		return
	}
	coll := c.Param("coll")
	f.nextID++
	in["id"] = f.nextID
	if coll == "services" {
		in["id"], in["autor"] = uuid.NewString(), claims.DisplayName()
	}
	f.items[coll] = append(f.items[coll], in)
	body, _ := json.Marshal(in)
	f.replays[key] = stored{http.StatusCreated, body}
	c.Data(http.StatusCreated, "application/json", body)
}

// find returns the index of the item id of the collection, or -1.
func (f *fakeAPI) find(coll, id string) int {
	for i, it := range f.items[coll] {
		if idString(it["id"]) == id {
			return i
		}
	}
	return -1
}

func idString(v any) string {
	if n, ok := v.(int); ok {
		return strconv.Itoa(n)
	}
	s, _ := v.(string)
	return s
}

func (f *fakeAPI) get(c *gin.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := f.find(c.Param("coll"), c.Param("id"))
	if i < 0 {
		problem.Abort(c, problem.Errorf(problem.ENOTFOUND, "there is nothing with this id"))
		return
	}
	c.JSON(http.StatusOK, f.items[c.Param("coll")][i])
}

func (f *fakeAPI) replace(c *gin.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	coll := c.Param("coll")
	i := f.find(coll, c.Param("id"))
	if i < 0 {
		problem.Abort(c, problem.Errorf(problem.ENOTFOUND, "there is nothing with this id"))
		return
	}
	in, err := decode(c)
	if err != nil {
		problem.Abort(c, err)
		return
	}
	in["id"] = f.items[coll][i]["id"]
	f.items[coll][i] = in
	c.JSON(http.StatusOK, in)
}

func (f *fakeAPI) delete(c *gin.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	coll := c.Param("coll")
	i := f.find(coll, c.Param("id"))
	if i < 0 {
		problem.Abort(c, problem.Errorf(problem.ENOTFOUND, "there is nothing with this id"))
		return
	}
	f.items[coll] = append(f.items[coll][:i], f.items[coll][i+1:]...)
	c.Status(http.StatusNoContent)
}

func (f *fakeAPI) list(c *gin.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	data := f.items[c.Param("coll")]
	if data == nil {
		data = []map[string]any{}
	}
	c.JSON(http.StatusOK, gin.H{"data": data, "meta": gin.H{"page": 1, "per_page": 20, "total": len(data)}})
}

// count returns how many items the collection holds.
func (f *fakeAPI) count(coll string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.items[coll])
}

// setThrottle makes the next n POSTs answer 429.
func (f *fakeAPI) setThrottle(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.throttle = n
}

// postCount returns the POSTs received so far.
func (f *fakeAPI) postCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.posts
}

// env returns the variables that point the command at f as clientID.
func (f *fakeAPI) env(t testing.TB, clientID string) map[string]string {
	t.Helper()
	rc, ok := f.idp.Realm().Client(clientID)
	if !ok {
		t.Fatalf("no client %q", clientID)
	}
	return map[string]string{
		"MUNICIPAL_SEARCH_URL": f.srv.URL + "/search", "MUNICIPAL_JOBS_URL": f.srv.URL + "/go/v1",
		"MUNICIPAL_AUTH_URL": f.idp.URL(), "MUNICIPAL_CLIENT_ID": clientID, "MUNICIPAL_CLIENT_SECRET": rc.Secret,
	}
}

// itemsJSON returns the collection as JSON, for failure messages.
func (f *fakeAPI) itemsJSON(coll string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(f.items[coll])
	return b.String()
}
