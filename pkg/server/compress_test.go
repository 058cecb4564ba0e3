package server_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/klauspost/compress/zstd"

	"github.com/municipal-apis/platform/pkg/server"
)

// compressedAPI serves, behind server.Handler, a list page well over
// server.CompressMinSize, a page just over it (a coded answer whose length
// the server states), a small item, an empty answer, a panic, an item that
// honours If-None-Match: * and a file served by http.ServeContent (which
// writes no body for HEAD), over a real listener.
func compressedAPI(t *testing.T) (url string, logs *strings.Builder) {
	t.Helper()
	logs = &strings.Builder{}
	engine := server.NewGin()
	engine.Use(server.Preconditions)
	engine.GET("/list", func(c *gin.Context) {
		items := make([]gin.H, 200)
		for i := range items {
			items[i] = gin.H{"id": i, "nome": fmt.Sprintf("Emissão de certidão número %d", i), "resumo": "Atendimento presencial na subprefeitura"}
		}
		c.JSON(http.StatusOK, gin.H{"data": items})
	})
	engine.GET("/mid", func(c *gin.Context) {
		c.JSON(http.StatusOK, gin.H{"resumo": strings.Repeat("Atendimento presencial na subprefeitura. ", 30)})
	})
	engine.GET("/item", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"id": 1, "nome": "IPTU"}) })
	file := strings.Repeat("Carta de serviços ao cidadão. ", 200)
	serveFile := func(c *gin.Context) {
		http.ServeContent(c.Writer, c.Request, "carta.txt", time.Time{}, strings.NewReader(file))
	}
	engine.GET("/file", serveFile)
	engine.HEAD("/file", serveFile)
	engine.DELETE("/item", func(c *gin.Context) { c.Status(http.StatusNoContent) })
	engine.GET("/panic", func(*gin.Context) { panic("boom") })
	h := server.Handler(server.Options{Logger: slog.New(slog.NewJSONHandler(logs, nil)), Metrics: server.NewMetrics(), App: engine, MaxBodyBytes: 64})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, logs
}

// decode undoes coding on body.
func decode(t *testing.T, coding, body string) string {
	t.Helper()
	var r io.Reader
	switch coding {
	case "gzip":
		zr, err := gzip.NewReader(strings.NewReader(body))
		if err != nil {
			t.Fatalf("gzip body: %v", err)
		}
		r = zr
	case "zstd":
		zr, err := zstd.NewReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	default:
		return body
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s body: %v", coding, err)
	}
	return string(out)
}

func TestALargeAnswerIsCompressedInTheCodingTheClientAccepts(t *testing.T) {
	t.Parallel()
	url, _ := compressedAPI(t)
	plainResp, plain := send(t, http.MethodGet, url+"/list")
	if plainResp.StatusCode != 200 || plainResp.Header.Get("Content-Encoding") != "" || len(plain) < 4*server.CompressMinSize {
		t.Fatalf("without Accept-Encoding: status %d, Content-Encoding %q, %d bytes", plainResp.StatusCode, plainResp.Header.Get("Content-Encoding"), len(plain))
	}
	if plainResp.Header.Get("Vary") != "Accept-Encoding" {
		t.Errorf("an uncompressed answer that could have been compressed: Vary %q, want Accept-Encoding", plainResp.Header.Get("Vary"))
	}
	tests := []struct{ accept, want string }{
		{"gzip", "gzip"},
		{"zstd", "zstd"},
		{"gzip, deflate, br, zstd", "zstd"},
		{"zstd;q=0, gzip", "gzip"},
		{"GZIP", "gzip"},
		{"gzip;q=0", ""},
		{"identity", ""},
		{"deflate, br", ""},
		{"identity\ngzip", "gzip"},
		{"zstd;q=0\ngzip;q=0.5", "gzip"},
	}
	for _, tt := range tests {
		// A "\n" in accept separates Accept-Encoding lines: a list
		// header is one list however many lines it is sent in.
		var header []string
		for _, line := range strings.Split(tt.accept, "\n") {
			header = append(header, "Accept-Encoding", line)
		}
		resp, body := send(t, http.MethodGet, url+"/list", header...)
		got := resp.Header.Get("Content-Encoding")
		if resp.StatusCode != 200 || got != tt.want {
			t.Errorf("Accept-Encoding %q: status %d, Content-Encoding %q, want %q", tt.accept, resp.StatusCode, got, tt.want)
			continue
		}
		if resp.Header.Get("Vary") != "Accept-Encoding" || resp.Header.Get("X-Request-Id") == "" || resp.Header.Get("Content-Type") != plainResp.Header.Get("Content-Type") {
			t.Errorf("Accept-Encoding %q: Vary %q, X-Request-Id %q, Content-Type %q", tt.accept, resp.Header.Get("Vary"), resp.Header.Get("X-Request-Id"), resp.Header.Get("Content-Type"))
		}
		if got == "" {
			continue
		}
		if (resp.ContentLength != -1 && resp.ContentLength != int64(len(body))) || len(body) > len(plain)/3 {
			t.Errorf("Accept-Encoding %q: Content-Length %d, %d bytes for %d", tt.accept, resp.ContentLength, len(body), len(plain))
		}
		if d := decode(t, got, body); d != plain {
			t.Errorf("Accept-Encoding %q: the %s body decodes to %d bytes that differ from the %d of the plain answer", tt.accept, got, len(d), len(plain))
		}
	}
}

func TestSmallAndBodilessAnswersAreNotCompressed(t *testing.T) {
	t.Parallel()
	url, logs := compressedAPI(t)
	for _, c := range []struct {
		method, path string
		header       []string
		status       int
		body         bool
	}{
		{http.MethodGet, "/item", nil, 200, true},
		{http.MethodDelete, "/item", nil, 204, false},
		{http.MethodGet, "/list", []string{"If-None-Match", "*"}, 304, false},
		{http.MethodGet, "/nowhere", nil, 404, true},
		{http.MethodGet, "/panic", nil, 500, true},
	} {
		resp, body := send(t, c.method, url+c.path, append([]string{"Accept-Encoding", "gzip, zstd"}, c.header...)...)
		name := c.method + " " + c.path
		if resp.StatusCode != c.status || resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: status %d, Content-Encoding %q; want %d, none", name, resp.StatusCode, resp.Header.Get("Content-Encoding"), c.status)
		}
		if c.body != (len(body) > 0) {
			t.Errorf("%s: %d bytes of body", name, len(body))
		}
		if c.body && !json.Valid([]byte(body)) {
			t.Errorf("%s: body %q is not the JSON it would be uncompressed", name, body)
		}
	}
	if !strings.Contains(logs.String(), `"status":500`) {
		t.Errorf("the panic's 500 is not in the access log: %s", logs)
	}
}

// A HEAD answer has the header fields of its GET (RFC 9110, 9.3.2), and a
// Content-Length only if it is the length of the body the GET sends (8.6):
// HEAD used to state the uncompressed length beside a GET coded shorter.
func TestAHeadAnswerHasTheHeaderFieldsOfItsGet(t *testing.T) {
	t.Parallel()
	url, _ := compressedAPI(t)
	for _, path := range []string{"/list", "/mid", "/item", "/file"} {
		for _, accept := range []string{"", "gzip", "zstd, gzip", "identity"} {
			var header []string
			if accept != "" {
				header = []string{"Accept-Encoding", accept}
			}
			getResp, getBody := send(t, http.MethodGet, url+path, header...)
			headResp, headBody := send(t, http.MethodHead, url+path, header...)
			name := fmt.Sprintf("HEAD %s, Accept-Encoding %q", path, accept)
			if getResp.StatusCode != 200 || headResp.StatusCode != 200 || headBody != "" {
				t.Errorf("%s: status %d (GET %d), %d bytes of body", name, headResp.StatusCode, getResp.StatusCode, len(headBody))
				continue
			}
			if n := headResp.ContentLength; n != -1 && n != int64(len(getBody)) {
				t.Errorf("%s: Content-Length %d, but GET sends %d bytes (Content-Encoding %q)", name, n, len(getBody), getResp.Header.Get("Content-Encoding"))
			}
			fields := []string{"Content-Type", "Vary", "Content-Encoding"}
			if path == "/file" {
				// ServeContent writes no body for HEAD: what coding it
				// would get is not known, and its length is left out.
				fields = fields[:2]
			} else if headResp.ContentLength != getResp.ContentLength {
				t.Errorf("%s: Content-Length %d, GET's %d", name, headResp.ContentLength, getResp.ContentLength)
			}
			for _, f := range fields {
				if h, g := headResp.Header.Get(f), getResp.Header.Get(f); h != g {
					t.Errorf("%s: %s %q, GET's %q", name, f, h, g)
				}
			}
		}
	}
}
