package probe_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/probe"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("/empty", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/down", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusFound) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	tests := []struct {
		name    string
		url     string
		wantErr bool
	}{
		{"a 200 answer is healthy", srv.URL + "/ok", false},
		{"a 204 answer is healthy", srv.URL + "/empty", false},
		{"a 503 answer is unhealthy", srv.URL + "/down", true},
		{"a 404 answer is unhealthy", srv.URL + "/missing", true},
		{"a redirect is not followed and is unhealthy", srv.URL + "/moved", true},
		{"a closed port is unhealthy", "http://" + closedAddr(t) + "/livez", true},
		{"a relative url is refused", "/livez", true},
		{"a non-http scheme is refused", "ftp://127.0.0.1/livez", true},
		{"a url that does not parse is refused", "http://[::1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := probe.Check(context.Background(), client, tt.url)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Check(%q) = %v, want error %v", tt.url, err, tt.wantErr)
			}
		})
	}
}

func TestCheckStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { <-block }))
	t.Cleanup(func() { close(block); srv.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := probe.Check(ctx, srv.Client(), srv.URL); err == nil {
		t.Fatal("Check with a cancelled context succeeded")
	}
}

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return addr
}
