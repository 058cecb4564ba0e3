package server_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/server"
)

// The API sends no ETag: a write made conditional on one must not happen,
// where ignoring the header overwrote the row the client meant to protect.
func TestPreconditionsTheAPICannotMeetStopTheRequest(t *testing.T) {
	t.Parallel()
	engine := server.NewGin()
	var ran atomic.Int32
	api := engine.Group("/api/v1", server.Preconditions)
	api.GET("/things/:id", func(c *gin.Context) {
		ran.Add(1)
		if c.Param("id") == "0" {
			c.JSON(http.StatusNotFound, gin.H{})
			return
		}
		c.JSON(http.StatusOK, gin.H{"id": c.Param("id")})
	})
	for _, m := range []string{http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodPost} {
		api.Handle(m, "/things/:id", func(c *gin.Context) { ran.Add(1); c.Status(http.StatusNoContent) })
	}
	srv := httptest.NewServer(server.Handler(server.Options{Logger: slog.New(slog.DiscardHandler), Metrics: server.NewMetrics(), App: engine}))
	defer srv.Close()
	tests := []struct {
		name, method, path, header, value string
		status                            int
		ran                               bool
	}{
		{"a PUT if the row is as last seen", http.MethodPut, "/api/v1/things/1", "If-Match", `"abc"`, http.StatusPreconditionFailed, false},
		{"a DELETE if the row is as last seen", http.MethodDelete, "/api/v1/things/1", "If-Match", `W/"abc", "def"`, http.StatusPreconditionFailed, false},
		{"a GET if the row is as last seen", http.MethodGet, "/api/v1/things/1", "If-Match", `"abc"`, http.StatusPreconditionFailed, false},
		{"a PUT if the row exists", http.MethodPut, "/api/v1/things/1", "If-Match", "*", http.StatusNoContent, true},
		{"a PUT if the row does not exist", http.MethodPut, "/api/v1/things/1", "If-None-Match", "*", http.StatusPreconditionFailed, false},
		{"a DELETE if the row does not exist", http.MethodDelete, "/api/v1/things/1", "If-None-Match", " * ", http.StatusPreconditionFailed, false},
		{"a POST that creates, if nothing is there", http.MethodPost, "/api/v1/things/1", "If-None-Match", "*", http.StatusNoContent, true},
		{"a PUT unless the row is one it never was", http.MethodPut, "/api/v1/things/1", "If-None-Match", `"abc"`, http.StatusNoContent, true},
		{"a GET of a row that exists, unless it exists", http.MethodGet, "/api/v1/things/1", "If-None-Match", "*", http.StatusNotModified, true},
		{"a GET of a row that does not exist, unless it exists", http.MethodGet, "/api/v1/things/0", "If-None-Match", "*", http.StatusNotFound, true},
		{"a PUT if unmodified since (no date is published)", http.MethodPut, "/api/v1/things/1", "If-Unmodified-Since", "Sat, 01 Jan 2000 00:00:00 GMT", http.StatusNoContent, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := ran.Load()
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
			req.Header.Set(tc.header, tc.value)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || (ran.Load() > before) != tc.ran {
				t.Errorf("%d, handler ran %v; want %d, %v: %s", resp.StatusCode, ran.Load() > before, tc.status, tc.ran, body)
			}
			if tc.status == http.StatusPreconditionFailed && !strings.Contains(string(body), "urn:municipal:problem:precondition-failed") {
				t.Errorf("body %s", body)
			}
			if tc.status == http.StatusNotModified && len(body) != 0 {
				t.Errorf("a 304 with a body: %s", body)
			}
		})
	}
}

// A program's OpenAPI document, served without a token, honours the same
// conditional headers as its API: they were ignored there.
func TestTheOpenAPIDocumentAnswersConditionalRequests(t *testing.T) {
	t.Parallel()
	engine := server.NewGin()
	doc := []byte(`{"openapi":"3.1.0"}`)
	engine.GET("/openapi.json", server.OpenAPI(doc))
	srv := httptest.NewServer(server.Handler(server.Options{Logger: slog.New(slog.DiscardHandler), Metrics: server.NewMetrics(), App: engine}))
	defer srv.Close()
	for _, c := range []struct {
		method, header, value string
		status                int
		body                  string
	}{
		{http.MethodGet, "", "", http.StatusOK, string(doc)},
		{http.MethodGet, "If-Match", `"x"`, http.StatusPreconditionFailed, ""},
		{http.MethodGet, "If-Match", "*", http.StatusOK, string(doc)},
		{http.MethodGet, "If-None-Match", "*", http.StatusNotModified, ""},
		{http.MethodHead, "If-None-Match", "*", http.StatusNotModified, ""},
		{http.MethodGet, "If-None-Match", `"x"`, http.StatusOK, string(doc)},
	} {
		var header []string
		if c.header != "" {
			header = []string{c.header, c.value}
		}
		resp, body := send(t, c.method, srv.URL+"/openapi.json", header...)
		if resp.StatusCode != c.status || (c.body != "" && body != c.body) || (c.status == http.StatusNotModified && body != "") {
			t.Errorf("%s %s: %q: %d %q, want %d", c.method, c.header, c.value, resp.StatusCode, body, c.status)
		}
	}
}
