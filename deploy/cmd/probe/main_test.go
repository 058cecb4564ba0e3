package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRealMain(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)

	tests := []struct {
		name       string
		args       []string
		wantErr    bool
		wantStderr string
	}{
		{"a healthy url exits cleanly and prints nothing", []string{srv.URL + "/readyz"}, false, ""},
		{"an unhealthy url fails and says which status", []string{srv.URL + "/livez"}, true, "status 503"},
		{"no url fails with the usage", nil, true, "usage: probe"},
		{"two urls fail with the usage", []string{srv.URL, srv.URL}, true, "usage: probe"},
		{"a zero timeout fails with the usage", []string{"-timeout", "0s", srv.URL}, true, "usage: probe"},
		{"an unknown flag fails", []string{"-insecure", srv.URL}, true, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			err := realMain(context.Background(), tt.args, &stderr)
			if (err != nil) != tt.wantErr {
				t.Fatalf("realMain(%q) = %v, want error %v", tt.args, err, tt.wantErr)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) || (tt.wantStderr == "" && stderr.Len() > 0) {
				t.Fatalf("stderr = %q, want it to contain %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}
