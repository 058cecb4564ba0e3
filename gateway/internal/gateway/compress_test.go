package gateway_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/municipal-apis/platform/pkg/server"
)

// gunzip undoes gzip on body.
func gunzip(t *testing.T, body string) string {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip body: %v", err)
	}
	return string(out)
}

// A service compresses its own answers (server.Handler); the gateway
// passes the client's Accept-Encoding on and the compressed answer back as
// the service wrote it, and compresses nothing of its own but the portal.
func TestTheGatewayPassesCompressedAnswersThroughAsTheyCame(t *testing.T) {
	t.Parallel()
	items := make([]map[string]any, 300)
	for i := range items {
		items[i] = map[string]any{"id": i, "nome": fmt.Sprintf("Vaga de auxiliar administrativo %d", i)}
	}
	page, err := json.Marshal(map[string]any{"data": items})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sawAccept string
	svc := httptest.NewServer(server.Compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sawAccept = r.Header.Get("Accept-Encoding")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(page)
	})))
	t.Cleanup(svc.Close)
	h := start(t, withRoute("/svc", svc.URL))
	token := h.idp.Token(t, "reader")

	// Large enough to be streamed (proxy.ShortBody) and not only when
	// compressed: both ways of answering keep the coding.
	for _, accept := range []string{"gzip", "identity"} {
		resp, body := h.get(t, "/svc/list", token, "Accept-Encoding", accept)
		coding := resp.Header.Get("Content-Encoding")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Vary") != "Accept-Encoding" || resp.Header.Get("X-Request-Id") == "" {
			t.Fatalf("Accept-Encoding %s: %s, Vary %q, X-Request-Id %q", accept, resp.Status, resp.Header.Get("Vary"), resp.Header.Get("X-Request-Id"))
		}
		mu.Lock()
		got := sawAccept
		mu.Unlock()
		if got != accept {
			t.Errorf("the service saw Accept-Encoding %q, want the client's %q", got, accept)
		}
		switch {
		case accept == "gzip" && coding != "gzip":
			t.Errorf("Accept-Encoding gzip: Content-Encoding %q, want the service's gzip", coding)
		case accept == "gzip" && gunzip(t, body) != string(page):
			t.Errorf("the gzip body through the gateway does not decode to the service's page")
		case accept == "gzip" && len(body) > len(page)/3:
			t.Errorf("%d bytes through the gateway for a page of %d: not the compressed body", len(body), len(page))
		case accept == "identity" && (coding != "" || body != string(page)):
			t.Errorf("Accept-Encoding identity: Content-Encoding %q, %d bytes for %d", coding, len(body), len(page))
		}
	}

	// HEAD goes through with the header fields of its GET, and no length
	// but the coded body's (RFC 9110, 8.6).
	for _, accept := range []string{"gzip", "identity"} {
		getResp, getBody := h.get(t, "/svc/list", token, "Accept-Encoding", accept)
		resp, body := h.do(t, http.MethodHead, "/svc/list", token, nil, "Accept-Encoding", accept)
		if resp.StatusCode != http.StatusOK || body != "" || resp.Header.Get("Content-Encoding") != getResp.Header.Get("Content-Encoding") ||
			(resp.ContentLength != -1 && resp.ContentLength != int64(len(getBody))) {
			t.Errorf("HEAD, Accept-Encoding %s: %s, %d bytes of body, Content-Encoding %q, Content-Length %d; GET: Content-Encoding %q, %d bytes",
				accept, resp.Status, len(body), resp.Header.Get("Content-Encoding"), resp.ContentLength, getResp.Header.Get("Content-Encoding"), len(getBody))
		}
	}

	// The gateway's own problems stay as they are.
	resp, body := h.get(t, "/svc/list", "", "Accept-Encoding", "gzip")
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Content-Encoding") != "" || !json.Valid([]byte(body)) {
		t.Errorf("401 of the gateway asked for gzip: %s, Content-Encoding %q, body %q", resp.Status, resp.Header.Get("Content-Encoding"), body)
	}
}

func TestThePortalCompressesItsAssets(t *testing.T) {
	t.Parallel()
	h := start(t)
	const bundle = "/docs/assets/swagger-ui/swagger-ui-bundle.js"
	plainResp, plain := h.get(t, bundle, "", "Accept-Encoding", "identity")
	if plainResp.StatusCode != http.StatusOK || plainResp.Header.Get("Content-Encoding") != "" || len(plain) < 100_000 {
		t.Fatalf("GET %s uncompressed: %s, Content-Encoding %q, %d bytes", bundle, plainResp.Status, plainResp.Header.Get("Content-Encoding"), len(plain))
	}
	resp, body := h.get(t, bundle, "", "Accept-Encoding", "gzip")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("GET %s with gzip: %s, Content-Encoding %q, Vary %q", bundle, resp.Status, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
	}
	if len(body) > len(plain)/2 || !bytes.Equal([]byte(gunzip(t, body)), []byte(plain)) {
		t.Errorf("the portal's gzip bundle: %d bytes for %d, or not the plain one decoded", len(body), len(plain))
	}
	if resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("Content-Type") != plainResp.Header.Get("Content-Type") {
		t.Errorf("the compressed bundle lost a header: %v", resp.Header)
	}
	// A HEAD has the header fields of the GET (RFC 9110 9.3.2), and no
	// length but the coded body's (8.6).
	head, _ := h.do(t, http.MethodHead, bundle, "", nil, "Accept-Encoding", "gzip")
	if head.StatusCode != http.StatusOK || (head.ContentLength != -1 && head.ContentLength != int64(len(body))) ||
		head.Header.Get("Content-Encoding") != "gzip" || head.Header.Get("Accept-Ranges") != resp.Header.Get("Accept-Ranges") {
		t.Errorf("HEAD %s with gzip: %s, Content-Length %d, Content-Encoding %q, Accept-Ranges %q; GET: %d bytes, Accept-Ranges %q",
			bundle, head.Status, head.ContentLength, head.Header.Get("Content-Encoding"), head.Header.Get("Accept-Ranges"), len(body), resp.Header.Get("Accept-Ranges"))
	}
}
