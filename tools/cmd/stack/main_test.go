package main

import (
	"context"
	"errors"
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
	environ := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
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

	run := startOnFreeAddrs(t, environ)
	defer run.cancel()
	gateway, gatewayAdmin, stdout, done, cancel := run.addrs[0], run.addrs[1], run.stdout, run.done, run.cancel

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
		out := stdout.String()
		t.Fatalf("the stack did not stop cleanly: %v\nits output's last lines:\n%s", err, out[max(0, len(out)-4000):])
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

// stackRun is a stack started by startOnFreeAddrs.
type stackRun struct {
	addrs  []string // the gateway's, its admin's, devidp's, then the services' and their admins'
	stdout *logtest.Buffer
	done   <-chan error // realMain's return
	cancel context.CancelFunc
}

// startOnFreeAddrs runs the stack with environ on addresses FreeAddrs
// chose, and returns once it is up. Another process may take a chosen port
// before its program binds it (an outgoing connection's local port comes
// from the same range); the stack tries again only for addresses it chose
// itself, so this starts it again on new ones, twice at most.
func startOnFreeAddrs(t *testing.T, environ []string) stackRun {
	t.Helper()
	for attempt := 1; ; attempt++ {
		addrs, err := stack.FreeAddrs(make([]string, 7))
		if err != nil {
			t.Fatal(err)
		}
		env := append(slices.Clone(environ),
			"GATEWAY_ADDR="+addrs[0], "GATEWAY_ADMIN_ADDR="+addrs[1], "DEVIDP_ADDR="+addrs[2],
			"SEARCH_ADMIN_ADDR="+addrs[3], "JOBS_ADDR="+addrs[4], "SEARCH_ADMIN_ADMIN_ADDR="+addrs[5], "JOBS_ADMIN_ADDR="+addrs[6])
		ctx, cancel := context.WithCancel(context.Background())
		stdout := &logtest.Buffer{}
		done := make(chan error, 1)
		go func() { done <- realMain(ctx, nil, env, stdout) }()
		err = waitUp(stdout, done)
		if err == nil {
			return stackRun{addrs: addrs, stdout: stdout, done: done, cancel: cancel}
		}
		cancel()
		if attempt < 3 && strings.Contains(stdout.String(), "address already in use") {
			t.Logf("attempt %d: a chosen port was taken before its program bound it; again on new ones", attempt)
			continue
		}
		t.Fatalf("%v\n%s", err, stdout.String())
	}
}

// waitUp waits for the stack writing to stdout to be up, for 3 minutes at
// most, and says why it is not when it is not.
func waitUp(stdout *logtest.Buffer, done <-chan error) error {
	for deadline := time.Now().Add(3 * time.Minute); !strings.Contains(stdout.String(), "The stack is up"); time.Sleep(100 * time.Millisecond) {
		select {
		case err := <-done:
			return fmt.Errorf("the stack ended before it was up: %w", err)
		default:
		}
		if time.Now().After(deadline) {
			return errors.New("the stack was not up in time")
		}
	}
	return nil
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
