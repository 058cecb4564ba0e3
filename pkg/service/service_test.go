package service_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/program/programtest"
	"github.com/municipal-apis/platform/pkg/service"
)

// things is the schema of the service under test.
var things = fstest.MapFS{"00001_things.sql": {Data: []byte("-- +goose Up\nCREATE TABLE things (id int);\n")}}

// sets are the migration sets of the service under test: its own and the
// idempotency keys'.
var sets = []pg.Set{{FS: things}, idempotency.MigrationSet}

// config reads a service configuration for a fresh database that has
// every set applied when migrated is true.
func config(t *testing.T, migrated bool) service.Config {
	t.Helper()
	dsn := pgtest.NewURL(t, fstest.MapFS{})
	if migrated {
		dsn = pgtest.NewURL(t, things, idempotency.MigrationSet)
	}
	var cfg service.Config
	err := program.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0", "DATABASE_URL": dsn, "OIDC_ISSUER_URL": devidptest.Start(t).Issuer(),
	}), nil, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	return cfg
}

func TestServeStopsEverythingWhenTheServicesOwnWorkFails(t *testing.T) {
	t.Parallel()
	b, err := service.Open(context.Background(), config(t, true), sets)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	broken := errors.New("the re-embed worker lost its database")
	started := make(chan struct{})
	err = b.Serve(context.Background(), http.NotFoundHandler(), func(ctx context.Context) error {
		close(started)
		return broken
	})
	<-started
	if !errors.Is(err, broken) {
		t.Errorf("Serve = %v, want the work's error", err)
	}
	if _, err := http.Get("http://" + b.Addr() + "/"); err == nil {
		t.Error("the server still answers after Serve returned")
	}
}

func TestCommandsMigrateThenServe(t *testing.T) {
	t.Parallel()
	cfg := config(t, false)
	served := make(chan service.Config, 1)
	newApp := func(_ context.Context, c service.Config) (*fakeApp, error) {
		select {
		case served <- c:
		default:
			t.Error("serve built the app twice")
		}
		return &fakeApp{}, nil
	}
	ctx := context.Background()
	if err := service.Commands(ctx, []string{"frobnicate"}, cfg, newApp, sets); err == nil || !strings.Contains(err.Error(), "migrate or serve") {
		t.Errorf("an unknown command: %v", err)
	}
	// Neither "serve -h" nor a stray argument starts a server.
	var usage program.Usage
	if err := service.Commands(ctx, []string{"serve", "-h"}, cfg, newApp, sets); !errors.As(err, &usage) {
		t.Errorf("serve -h: %v, want its usage", err)
	}
	// migrate -h answers with help too: it was flag's "help requested", an
	// exit status of 1 to a script that only asked.
	if err := service.Commands(ctx, []string{"migrate", "-h"}, cfg, newApp, sets); !errors.As(err, &usage) || !strings.Contains(err.Error(), "-create-database") {
		t.Errorf("migrate -h: %v, want its usage", err)
	}
	if err := service.Commands(ctx, []string{"serve", "--port=9"}, cfg, newApp, sets); err == nil || !strings.Contains(err.Error(), "takes no arguments") {
		t.Errorf("serve with an argument: %v, want it refused", err)
	}
	select {
	case <-served:
		t.Fatal("serve with arguments built the app")
	default:
	}
	if err := service.Commands(ctx, []string{"migrate"}, cfg, newApp, sets); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	b, err := service.Open(ctx, cfg, sets)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, c := range b.Checks {
		if c.Name == "schema" {
			if err := c.Probe(ctx); err != nil {
				t.Errorf("the schema is not current after migrate: %v", err)
			}
		}
	}
	if err := service.Commands(ctx, nil, cfg, newApp, sets); err != nil {
		t.Fatalf("serve: %v", err)
	}
	select {
	case c := <-served:
		if c.DB.URL != cfg.DB.URL {
			t.Errorf("serve built the app for %s, want %s", c.DB.URL, cfg.DB.URL)
		}
	case <-time.After(time.Second):
		t.Error("serve did not build the app")
	}
}

// fakeApp is an app that returns at once.
type fakeApp struct{}

func (fakeApp) Run(context.Context) error { return nil }
func (fakeApp) Close() error              { return nil }

// A failure after the database is open (here: the HTTP port is taken) is
// an error that closes what was opened; it panicked on a nil *Base, exit
// status 2 and a stack trace instead of "address already in use".
func TestOpenOnABusyPortIsAnError(t *testing.T) {
	t.Parallel()
	cfg := config(t, true)
	cfg.HTTP.Addr = programtest.BusyAddr(t)
	b, err := service.Open(context.Background(), cfg, sets)
	if err == nil || b != nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("Open on a busy port: %v, %v; want an address-in-use error", b, err)
	}
}

// A service whose default admin port is busy (AdminConfig.Defaulted) serves
// its probes on a free port, and says so: the orchestrator and Prometheus
// were told the default.
func TestOpenSaysWhereTheProbesGoWhenTheDefaultAdminPortIsBusy(t *testing.T) {
	t.Parallel()
	cfg := config(t, true)
	cfg.Admin.Addr, cfg.Admin.Defaulted = programtest.BusyAddr(t), true
	var logs logtest.Buffer
	cfg.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	b, err := service.Open(context.Background(), cfg, sets)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	if b.AdminAddr() == cfg.Admin.Addr {
		t.Fatalf("the admin listener is on the busy port %s", b.AdminAddr())
	}
	if !strings.Contains(logs.String(), "its default is busy") || !strings.Contains(logs.String(), `"admin_addr":"`+b.AdminAddr()+`"`) {
		t.Errorf("no warning naming %s in the log: %s", b.AdminAddr(), logs.String())
	}
}
