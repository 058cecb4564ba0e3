package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/stack"
)

func TestMain(m *testing.M) { os.Exit(stack.Main(m)) }

func TestALocalRunServesOnItsAddressesKeepsItsDatabasesAndStopsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs every program as a process; skipped under -short")
	}
	t.Parallel()
	suffix := fmt.Sprintf("%d", time.Now().UnixNano())
	dbs := map[string]string{"SEARCH_ADMIN_DATABASE_URL": "run_search_" + suffix, "JOBS_DATABASE_URL": "run_jobs_" + suffix}
	addrs, err := stack.FreeAddrs(make([]string, 7))
	if err != nil {
		t.Fatal(err)
	}
	gateway, gatewayAdmin := addrs[0], addrs[1]
	environ := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"DEVIDP_ADDR=" + addrs[2], "SEARCH_ADMIN_ADDR=" + addrs[3], "JOBS_ADDR=" + addrs[4], "GATEWAY_ADDR=" + gateway,
		"SEARCH_ADMIN_ADMIN_ADDR=" + addrs[5], "JOBS_ADMIN_ADDR=" + addrs[6], "GATEWAY_ADMIN_ADDR=" + gatewayAdmin,
		"LOG_FORMAT=json",                     // a variable of the programs, passed through
		"HTTP_ADDR=127.0.0.1:1",               // set per program by the stack, never passed through
		"ADMIN_ADDR=127.0.0.1:1",              // the same
		"RATE_LIMIT_KEY_PREFIX=run-" + suffix, // the gateway's own limits, counted apart from other runs
	}
	for name, db := range dbs {
		environ = append(environ, name+"="+strings.Replace(pgtest.AdminURL(), "/postgres?", "/"+db+"?", 1))
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), pgtest.AdminURL())
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(context.Background())
		for _, db := range dbs {
			_, _ = conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
		}
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout logtest.Buffer
	done := make(chan error, 1)
	go func() { done <- realMain(ctx, nil, environ, &stdout) }()
	for deadline := time.Now().Add(3 * time.Minute); !strings.Contains(stdout.String(), "The stack is up"); time.Sleep(100 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("the stack ended before it was up: %v\n%s", err, stdout.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stack was not up in time:\n%s", stdout.String())
		}
	}

	t.Run("the gateway answers on its address with its own rate limits", func(t *testing.T) {
		resp, err := http.Get("http://" + gateway + "/go/v1/api/v1/escolaridades")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("X-RateLimit-Limit") != "60" {
			t.Errorf("an anonymous call answered %d with limit %q, want 401 under the gateway's default of 60 a minute",
				resp.StatusCode, resp.Header.Get("X-RateLimit-Limit"))
		}
	})
	t.Run("the gateway's probes answer on its admin address", func(t *testing.T) {
		resp, err := http.Get("http://" + gatewayAdmin + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(stdout.String(), gatewayAdmin) {
			t.Errorf("/readyz on %s answered %d (banner names it: %v)", gatewayAdmin, resp.StatusCode, strings.Contains(stdout.String(), gatewayAdmin))
		}
	})
	t.Run("the programs get the environment and their lines are labelled", func(t *testing.T) {
		// The gateway writes its log in batches every 100 ms, so its first
		// lines may reach the output just after the banner.
		for _, name := range []string{stack.IdP, stack.SearchAdmin, stack.Jobs, stack.Gateway} {
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(stdout.String(), "["+name+"] {") && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if !strings.Contains(stdout.String(), "["+name+"] {") {
				t.Errorf("no JSON line of %s in the output", name)
			}
		}
	})

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("the stack did not stop cleanly: %v", err)
	}
	t.Run("the databases are kept for the next run", func(t *testing.T) {
		for name, db := range dbs {
			conn, err := pgx.Connect(context.Background(), strings.Replace(pgtest.AdminURL(), "/postgres?", "/"+db+"?", 1))
			if err != nil {
				t.Errorf("%s (%s) is gone: %v", db, name, err)
				continue
			}
			conn.Close(context.Background())
		}
	})
}

func TestTracingVariablesReachEveryProgramButTheServiceName(t *testing.T) {
	t.Parallel()
	opts := options([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318", "OTEL_SERVICE_NAME=everything", "HTTP_ADDR=:1"})
	for _, program := range []string{stack.IdP, stack.SearchAdmin, stack.Jobs, stack.Gateway} {
		env := opts.Env[program]
		if !slices.Contains(env, "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318") {
			t.Errorf("%s does not get OTEL_EXPORTER_OTLP_ENDPOINT: %v", program, env)
		}
		for _, kv := range env {
			if strings.HasPrefix(kv, "OTEL_SERVICE_NAME=") || strings.HasPrefix(kv, "HTTP_ADDR=") {
				t.Errorf("%s inherits %s, which each program sets for itself", program, kv)
			}
		}
	}
}
