package portal_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/municipal-apis/platform/gateway/internal/portal"
	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/program/programtest"
)

// serviceDoc reads a service's committed OpenAPI document, the one it
// serves at /openapi.json.
func serviceDoc(t *testing.T, service string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "services", service, "internal", "http", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// service serves doc at /openapi.json and counts the fetches; down makes it
// answer 503.
type service struct {
	srv     *httptest.Server
	fetches atomic.Int32
	down    atomic.Bool
}

func newService(t *testing.T, doc []byte) *service {
	s := &service{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/openapi.json" {
			http.NotFound(w, r)
			return
		}
		s.fetches.Add(1)
		if s.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write(doc)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// closedURL is the address of a port nothing listens on.
func closedURL(t *testing.T) string { return "http://" + programtest.ClosedAddr(t) }

func newPortal(t *testing.T, routes string, refresh, retry time.Duration) http.Handler {
	t.Helper()
	table, err := route.Parse(routes)
	if err != nil {
		t.Fatal(err)
	}
	p, err := portal.New(portal.Options{Routes: table, IssuerURL: "http://idp.test/auth/realms/municipal", Refresh: refresh, RetryAfter: retry})
	if err != nil {
		t.Fatal(err)
	}
	return portal.Mount(p, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "routed", http.StatusTeapot)
	}))
}

func get(t *testing.T, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	resp := rec.Result()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// operations lists "METHOD path" of a document in its order.
func operations(t *testing.T, doc []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(doc)))
	var out []string
	// Walk the tokens: the paths object's keys and their method keys.
	var v struct {
		Paths json.RawMessage `json:"paths"`
	}
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	pd := json.NewDecoder(strings.NewReader(string(v.Paths)))
	pd.Token()
	for pd.More() {
		p, _ := pd.Token()
		var item map[string]json.RawMessage
		if err := pd.Decode(&item); err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"get", "put", "post", "delete", "patch"} {
			if _, ok := item[m]; ok {
				out = append(out, strings.ToUpper(m)+" "+p.(string))
			}
		}
	}
	return out
}

func TestDocumentsAreRewrittenForCallersOfTheGateway(t *testing.T) {
	t.Parallel()
	jobsDoc, searchDoc := serviceDoc(t, "jobs"), serviceDoc(t, "search-admin")
	jobs, search := newService(t, jobsDoc), newService(t, searchDoc)
	h := newPortal(t, "/search="+search.srv.URL+",/go/v1="+jobs.srv.URL, time.Minute, time.Minute)

	for _, c := range []struct {
		prefix string
		orig   []byte
		scope  string
	}{{"/go/v1", jobsDoc, "jobs:write"}, {"/search", searchDoc, "search:services:write"}} {
		resp, body := get(t, h, "/docs/api"+c.prefix+"/openapi.json")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s document: %s %s", c.prefix, resp.Status, resp.Header.Get("Content-Type"))
		}
		var doc struct {
			Servers    []struct{ URL string } `json:"servers"`
			Security   []map[string][]string  `json:"security"`
			Components struct {
				SecuritySchemes map[string]struct {
					Type  string
					Flows struct {
						ClientCredentials struct {
							TokenURL string            `json:"tokenUrl"`
							Scopes   map[string]string `json:"scopes"`
						} `json:"clientCredentials"`
					}
				} `json:"securitySchemes"`
			} `json:"components"`
		}
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Servers) != 1 || doc.Servers[0].URL != c.prefix {
			t.Errorf("%s servers = %+v, want only the route prefix on the gateway's origin", c.prefix, doc.Servers)
		}
		cc := doc.Components.SecuritySchemes[portal.ClientCredentials]
		if cc.Type != "oauth2" || cc.Flows.ClientCredentials.TokenURL != "http://idp.test/auth/realms/municipal/protocol/openid-connect/token" {
			t.Errorf("%s client-credentials scheme = %+v", c.prefix, cc)
		}
		if strings.Contains(body, "{auth_url}") || !strings.Contains(body, "http://idp.test/auth/realms/municipal/protocol") {
			t.Errorf("%s: the {auth_url} placeholder is not the identity provider's root", c.prefix)
		}
		if _, ok := cc.Flows.ClientCredentials.Scopes[c.scope]; !ok {
			t.Errorf("%s: scope %s not among %v", c.prefix, c.scope, cc.Flows.ClientCredentials.Scopes)
		}
		if len(doc.Security) != 2 || doc.Security[1][portal.ClientCredentials] == nil {
			t.Errorf("%s security = %v, want the bearer then client credentials", c.prefix, doc.Security)
		}
		want, got := operations(t, c.orig), operations(t, []byte(body))
		if strings.Join(want, "\n") != strings.Join(got, "\n") || len(want) < 10 {
			t.Errorf("%s operations, in order:\n%v\nwant\n%v", c.prefix, got, want)
		}
	}
	// An operation with its own requirement (search-admin's scopes) gets the
	// client-credentials alternative with the same scopes.
	_, body := get(t, h, "/docs/api/search/openapi.json")
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	var op struct {
		Security []map[string][]string `json:"security"`
	}
	if err := json.Unmarshal(doc.Paths["/api/v1/admin/services"]["post"], &op); err != nil {
		t.Fatal(err)
	}
	sec := op.Security
	if len(sec) != 2 || strings.Join(sec[1][portal.ClientCredentials], " ") != "search:services:write" {
		t.Errorf("createServico security = %v", sec)
	}
	if n := jobs.fetches.Load(); n != 1 {
		t.Errorf("jobs asked %d times within the refresh interval, want 1 (cached)", n)
	}
}

func TestThePageShowsEachServiceOrWhyItIsUnavailable(t *testing.T) {
	t.Parallel()
	jobs := newService(t, serviceDoc(t, "jobs"))
	h := newPortal(t, "/search="+closedURL(t)+",/go/v1="+jobs.srv.URL, time.Hour, time.Hour)

	resp, body := get(t, h, "/docs/")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("page: %s", resp.Status)
	}
	for _, want := range []string{
		`data-spec="api/go/v1/openapi.json"`, "Municipal jobs and courses API",
		`class="api-down" role="alert"`, "the service did not answer",
		`src="assets/swagger-ui/swagger-ui-bundle.js"`, "/protocol/openid-connect/token",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(body, `data-spec="api/search/openapi.json"`) {
		t.Error("the page asks Swagger UI for the document of a service that is down")
	}
	resp, body = get(t, h, "/docs/api/search/openapi.json")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "did not answer") {
		t.Errorf("document of a service down: %s %s", resp.Status, body)
	}
	if strings.Contains(body, "connection refused") || strings.Contains(body, "127.0.0.1") {
		t.Errorf("the error shows transport details: %s", body)
	}
}

func TestADocumentIsKeptWhileItsServiceIsDownAndRefetchedWhenBack(t *testing.T) {
	t.Parallel()
	jobs := newService(t, serviceDoc(t, "jobs"))
	h := newPortal(t, "/go/v1="+jobs.srv.URL, time.Millisecond, time.Second)
	if resp, _ := get(t, h, "/docs/api/go/v1/openapi.json"); resp.StatusCode != http.StatusOK {
		t.Fatal(resp.Status)
	}
	jobs.down.Store(true)
	time.Sleep(5 * time.Millisecond) // past the refresh interval
	resp, _ := get(t, h, "/docs/api/go/v1/openapi.json")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a service down after a good fetch: %s, want the document held", resp.Status)
	}
	_, page := get(t, h, "/docs/")
	if !strings.Contains(page, `class="api-stale"`) || !strings.Contains(page, "503 Service Unavailable") {
		t.Error("the page does not say the document shown may be stale")
	}
	n := jobs.fetches.Load()
	for range 5 {
		get(t, h, "/docs/")
	}
	if got := jobs.fetches.Load(); got != n {
		t.Errorf("a service down was asked %d more times within RetryAfter", got-n)
	}
	jobs.down.Store(false)
	time.Sleep(1100 * time.Millisecond) // past RetryAfter
	if _, page := get(t, h, "/docs/"); strings.Contains(page, "api-stale") {
		t.Error("the page still says stale once the service answers again")
	}
}

func TestThePortalServesItsOwnFilesWithTheSecurityHeaders(t *testing.T) {
	t.Parallel()
	h := newPortal(t, "/go/v1="+closedURL(t), time.Minute, time.Minute)
	for _, c := range []struct {
		path, contentType string
		status            int
	}{
		{"/docs/assets/swagger-ui/swagger-ui-bundle.js", "text/javascript; charset=utf-8", 200},
		{"/docs/assets/swagger-ui/swagger-ui.css", "text/css; charset=utf-8", 200},
		{"/docs/assets/portal.js", "text/javascript; charset=utf-8", 200},
		{"/docs/", "text/html; charset=utf-8", 200},
		{"/docs/assets/swagger-ui/update.sh", "application/problem+json", 404},
		{"/docs/assets/swagger-ui/favicon-16x16.png", "application/problem+json", 404}, // Swagger UI's, not kept
		{"/docs/assets/swagger-ui/oauth2-redirect.html", "application/problem+json", 404},
		{"/docs/assets/swagger-ui/swagger-ui-bundle.js/x.js", "application/problem+json", 404},
		{"/docs/assets/", "application/problem+json", 404},
		{"/docs/api/nowhere/openapi.json", "application/problem+json", 404},
		{"/docs/elsewhere", "application/problem+json", 404},
	} {
		resp, _ := get(t, h, c.path)
		if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != c.contentType {
			t.Errorf("GET %s: %d %s, want %d %s", c.path, resp.StatusCode, resp.Header.Get("Content-Type"), c.status, c.contentType)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") ||
			resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: security headers %v", c.path, resp.Header)
		}
	}
	if resp, _ := get(t, h, "/docs"); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/docs/" {
		t.Errorf("GET /docs: %s to %q", resp.Status, resp.Header.Get("Location"))
	}
	if resp, _ := get(t, h, "/docsearch"); resp.StatusCode != http.StatusTeapot {
		t.Errorf("GET /docsearch reached the portal: %s", resp.Status)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/docs/", nil))
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /docs/: %d, Allow %q; want 405 with Allow (RFC 9110 15.5.6)", rec.Code, rec.Header().Get("Allow"))
	}
}

// The file server's refusals are problems like every other answer, not its
// text/plain lines, and never cacheable as the file is; a Range is read as
// RFC 9110 (section 14) has it where the file server does not.
func TestAFileTheRequestCannotHaveIsAProblem(t *testing.T) {
	t.Parallel()
	h := newPortal(t, "/go/v1="+closedURL(t), time.Minute, time.Minute)
	const file = "/docs/assets/portal.js"
	_, whole := get(t, h, file)
	size := fmt.Sprintf("bytes */%d", len(whole))
	for _, c := range []struct {
		method, header, value string
		status                int
		body                  string // of a success
	}{
		{http.MethodGet, "Range", "bytes=0-9", http.StatusPartialContent, whole[:10]},
		{http.MethodGet, "Range", "BYTES=0-9", http.StatusPartialContent, whole[:10]}, // 14.1: the unit's case is not significant
		{http.MethodGet, "Range", "bytes=-0, 0-9", http.StatusPartialContent, whole[:10]},
		{http.MethodGet, "Range", "items=0-5", http.StatusOK, whole}, // 14.2: an unknown unit is ignored
		{http.MethodHead, "Range", "bytes=0-9", http.StatusOK, ""},   // 14.2: Range is GET's only
		{http.MethodGet, "Range", "bytes=99999999-", http.StatusRequestedRangeNotSatisfiable, ""},
		{http.MethodGet, "Range", "bytes=5-2", http.StatusRequestedRangeNotSatisfiable, ""},
		{http.MethodGet, "Range", "bytes=-0", http.StatusRequestedRangeNotSatisfiable, ""}, // 14.1.3: no suffix of zero bytes
		{http.MethodGet, "If-Match", `"nope"`, http.StatusPreconditionFailed, ""},
		{http.MethodGet, "If-None-Match", `"nope"`, http.StatusOK, whole},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(c.method, file, nil)
		req.Header.Set(c.header, c.value)
		h.ServeHTTP(rec, req)
		resp := rec.Result()
		b, _ := io.ReadAll(resp.Body)
		name := c.method + " " + c.header + ": " + c.value
		if resp.StatusCode != c.status {
			t.Errorf("%s: %s, want %d", name, resp.Status, c.status)
			continue
		}
		if c.status < 400 {
			if c.method == http.MethodGet && string(b) != c.body {
				t.Errorf("%s: %d bytes, not the %d of the file's part", name, len(b), len(c.body))
			}
			continue
		}
		var p struct {
			Status int    `json:"status"`
			Type   string `json:"type"`
		}
		if resp.Header.Get("Content-Type") != "application/problem+json" || json.Unmarshal(b, &p) != nil || p.Status != c.status || p.Type == "" {
			t.Errorf("%s: %s %q, not a problem of status %d", name, resp.Header.Get("Content-Type"), b, c.status)
		}
		if cc := resp.Header.Get("Cache-Control"); strings.Contains(cc, "public") || resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: Cache-Control %q, Content-Security-Policy %q: a refusal a cache may keep for the file, or without the portal's headers",
				name, cc, resp.Header.Get("Content-Security-Policy"))
		}
		if c.status == http.StatusRequestedRangeNotSatisfiable && resp.Header.Get("Content-Range") != size {
			t.Errorf("%s: Content-Range %q, want %q (RFC 9110 15.5.17)", name, resp.Header.Get("Content-Range"), size)
		}
	}
}

// The page and the documents honour the conditional headers as the APIs
// and the portal's files do: none of them has an entity tag.
func TestThePagesAnswerConditionalRequests(t *testing.T) {
	t.Parallel()
	jobs := newService(t, serviceDoc(t, "jobs"))
	h := newPortal(t, "/go/v1="+jobs.srv.URL, time.Minute, time.Minute)
	for _, path := range []string{"/docs/", "/docs/api/go/v1/openapi.json", "/docs/assets/portal.js"} {
		for _, c := range []struct {
			header, value string
			status        int
		}{
			{"If-Match", `"x"`, http.StatusPreconditionFailed},
			{"If-Match", "*", http.StatusOK},
			{"If-None-Match", "*", http.StatusNotModified},
			{"If-None-Match", `"x"`, http.StatusOK},
		} {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.Header.Set(c.header, c.value)
			h.ServeHTTP(rec, req)
			name := path + " " + c.header + ": " + c.value
			switch {
			case rec.Code != c.status:
				t.Errorf("%s: %d, want %d", name, rec.Code, c.status)
			case c.status == http.StatusNotModified && rec.Body.Len() != 0:
				t.Errorf("%s: a 304 with %d bytes of body", name, rec.Body.Len())
			case c.status == http.StatusPreconditionFailed && rec.Header().Get("Content-Type") != "application/problem+json":
				t.Errorf("%s: a 412 of %s", name, rec.Header().Get("Content-Type"))
			case rec.Header().Get("Content-Security-Policy") == "":
				t.Errorf("%s: no Content-Security-Policy", name)
			}
		}
	}
}

func TestNoRouteMayUseThePortalsPrefix(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"/docs", "/docs/v1"} {
		table, err := route.Parse(prefix + "=http://127.0.0.1:1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := portal.New(portal.Options{Routes: table, IssuerURL: "http://idp.test/realm"}); err == nil {
			t.Errorf("a route at %s was accepted", prefix)
		}
	}
}
