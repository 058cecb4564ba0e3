package stack_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/stack"
)

func TestMain(m *testing.M) { os.Exit(stack.Main(m)) }

func TestAStackServesBothAreasThroughTheGatewayAndCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: starts every program as a process; skipped under -short")
	}
	t.Parallel()
	ctx := context.Background()
	s, err := stack.Start(ctx, stack.Options{})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			t.Logf("logs:\n%s", s.Logs())
			_ = s.Close()
		}
	}()

	t.Run("the jobs area answers through the gateway", func(t *testing.T) {
		c := s.MustClient(t, stack.JobsAdmin)
		page, err := c.ListEscolaridades(ctx, client.ListOptions{})
		if err != nil {
			t.Fatalf("ListEscolaridades: %v", err)
		}
		if page.Meta.Total != 0 {
			t.Errorf("a fresh database lists %d escolaridades, want 0", page.Meta.Total)
		}
	})
	t.Run("the search area answers through the gateway", func(t *testing.T) {
		v, err := s.MustClient(t, stack.CatalogAdmin).SchemaVersions(ctx)
		if err != nil || v.CurrentVersion == "" {
			t.Fatalf("SchemaVersions = %+v, %v; want the current version", v, err)
		}
	})
	t.Run("each service has its own migrated database", func(t *testing.T) {
		for _, dsn := range []string{s.SearchDatabaseURL, s.JobsDatabaseURL} {
			if n := count(t, dsn, "SELECT count(*) FROM goose_db_version WHERE version_id > 0"); n < 1 {
				t.Errorf("%s has %d migration rows, want the applied migrations", dsn, n)
			}
		}
		if s.SearchDatabaseURL == s.JobsDatabaseURL {
			t.Errorf("both services use %s", s.JobsDatabaseURL)
		}
	})

	urls := []string{s.GatewayURL, s.SearchAdminURL, s.JobsURL, s.AuthURL}
	dbs := []string{s.SearchDatabaseURL, s.JobsDatabaseURL}
	closed = true
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v\n%s", err, s.Logs())
	}
	t.Run("closing stops every program", func(t *testing.T) {
		hc := &http.Client{Timeout: time.Second}
		for _, u := range urls {
			if resp, err := hc.Get(u + "/livez"); err == nil {
				resp.Body.Close()
				t.Errorf("%s still answers after Close", u)
			}
		}
	})
	t.Run("closing drops the databases", func(t *testing.T) {
		for _, dsn := range dbs {
			conn, err := pgx.Connect(ctx, dsn)
			if err == nil {
				conn.Close(ctx)
				t.Errorf("%s still exists after Close", dsn)
			}
		}
	})
	t.Run("the logs hold every program's output", func(t *testing.T) {
		logs := s.Logs()
		for _, name := range []string{stack.IdP, stack.SearchAdmin, stack.Jobs, stack.Gateway} {
			if !strings.Contains(logs, "----- "+name+" -----") {
				t.Errorf("the logs have no part for %s", name)
			}
		}
	})
}

func TestAStackFailsWhenRedisIsUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and starts every program; skipped under -short")
	}
	t.Parallel()
	_, err := stack.Start(context.Background(), stack.Options{RedisURL: "redis://127.0.0.1:1/0"})
	if err == nil || !strings.Contains(err.Error(), "redis") {
		t.Fatalf("Start = %v, want an error naming Redis", err)
	}
}

func count(t *testing.T, dsn, query string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect %s: %v", dsn, err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, query).Scan(&n); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestEveryProgramLogsAtTheChosenLevelAndFormat(t *testing.T) {
	t.Parallel()
	s := stack.StartT(t, stack.Options{LogLevel: "debug"})
	if _, err := s.MustClient(t, stack.JobsAdmin).Token(context.Background()); err != nil {
		t.Fatalf("Token: %v", err)
	}
	logs := s.Logs()
	for _, part := range strings.Split(logs, "----- ")[1:] {
		name, out, _ := strings.Cut(part, " -----\n")
		if !strings.Contains(out, "level=") || strings.Contains(out, `{"time":`) {
			t.Errorf("%s does not log as text:\n%s", name, out)
		}
	}
	if !strings.Contains(logs, "level=DEBUG") {
		t.Error("no program logged at debug level although LogLevel is debug")
	}
}

func TestAStackOfTheIdentityProviderAloneNeedsNeitherPostgresNorRedis(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := stack.Start(ctx, stack.Options{
		Programs: []string{stack.IdP},
		RedisURL: "redis://127.0.0.1:1/0", // unreachable, and not needed
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	tok, err := s.Token(ctx, stack.JobsAdmin)
	if err != nil || strings.Count(tok, ".") != 2 {
		t.Errorf("Token = %q, %v; want a signed JWT", tok, err)
	}
	if s.GatewayURL != "" || s.JobsURL != "" || s.SearchAdminURL != "" {
		t.Errorf("programs not asked for run: gateway %q, jobs %q, search-admin %q", s.GatewayURL, s.JobsURL, s.SearchAdminURL)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v\n%s", err, s.Logs())
	}
}
