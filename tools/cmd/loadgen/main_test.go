package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// noEnv is an empty environment.
func noEnv(string) string { return "" }

func TestRealMainRefusesWithoutSending(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	tests := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"the production environment", []string{"--env", "production"}, 1, "refusing to load production"},
		{"a production base URL under --env local", []string{"--jobs-url", "https://api.municipal.example/go/v1"}, 1, "production host"},
		{"staging without the permission", []string{"--env", "staging"}, 1, "loopback only"},
		{"production even with the staging permission", []string{"--env", "staging", "--allow-remote-staging", "--auth-url", "https://auth.municipal.example"}, 1, "production host"},
		{"production by name with loopback URLs", []string{"--env", "production", "--search-url", srv.URL, "--jobs-url", srv.URL, "--auth-url", srv.URL}, 1, "production"},
		{"an unknown environment", []string{"--env", "prod"}, 2, "unknown environment"},
		{"a bad mix", []string{"--mix", "create-servico=x"}, 2, "integer from 0"},
		{"a stray argument", []string{"now"}, 2, "unexpected arguments"},
		{"an unknown flag", []string{"--rate-limit", "5"}, 2, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := realMain(context.Background(), tt.args, noEnv, &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.says) {
				t.Fatalf("exit %d, stderr %q; want %d saying %q", code, stderr.String(), tt.code, tt.says)
			}
		})
	}
	t.Cleanup(func() {
		if n := hits.Load(); n > 0 {
			t.Errorf("%d requests were sent", n)
		}
	})
}

func TestParseArgs(t *testing.T) {
	t.Parallel()
	t.Run("local defaults to make run's addresses and the development secrets", func(t *testing.T) {
		t.Parallel()
		cfg, asJSON, err := parseArgs([]string{"--json", "--rate", "20"}, noEnv, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.JobsURL != "http://127.0.0.1:8080/go/v1" || cfg.AuthURL != "http://127.0.0.1:8090" || cfg.Rate != 20 || !asJSON {
			t.Fatalf("config %+v, json %v", cfg, asJSON)
		}
		if cfg.SearchClient.Secret != "catalog-admin-secret" || cfg.JobsClient.Secret != "jobs-admin-secret" {
			t.Fatal("the development secrets were not filled in")
		}
	})
	t.Run("staging takes its secrets from the environment only", func(t *testing.T) {
		t.Parallel()
		env := map[string]string{searchSecretVar: "s1"}
		cfg, _, err := parseArgs([]string{"--env", "staging"}, func(k string) string { return env[k] }, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.SearchClient.Secret != "s1" || cfg.JobsClient.Secret != "" {
			t.Fatalf("secrets %q and %q, want s1 and none", cfg.SearchClient.Secret, cfg.JobsClient.Secret)
		}
		if !strings.HasPrefix(cfg.SearchURL, "https://api.staging.municipal.example") {
			t.Fatalf("search URL %s", cfg.SearchURL)
		}
	})
}
