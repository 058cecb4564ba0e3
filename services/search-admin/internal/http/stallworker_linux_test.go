package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	gormpg "gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/internal/postgres"
)

// stallWorkerEnv carries the stallWorker of a child process: the test
// binary started again runs that background worker instead of the tests.
const stallWorkerEnv = "SEARCH_ADMIN_STALL_WORKER"

// stallWorker is one background worker of a replica (the re-indexing runner
// or the re-embed worker) run alone in a process of its own, which stops
// itself with SIGSTOP right after sending, for the After-th time, the
// execution of a statement whose text holds Pattern: the worst moment for
// a worker to stall, just after it asked Postgres for a write.
type stallWorker struct {
	DSN     string
	Mode    string // "reindex" or "reembed"
	Holder  string
	Reindex catalog.ReindexConfig
	Pattern string
	After   int
}

func TestMain(m *testing.M) {
	if raw := os.Getenv(stallWorkerEnv); raw != "" {
		if err := runStallWorker(raw); err != nil {
			fmt.Fprintln(os.Stderr, "stall worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runStallWorker runs the worker raw describes until SIGTERM.
func runStallWorker(raw string) error {
	var w stallWorker
	if err := json.Unmarshal([]byte(raw), &w); err != nil {
		return err
	}
	cc, err := pgx.ParseConfig(w.DSN)
	if err != nil {
		return err
	}
	watch := &statementWatch{pattern: w.Pattern, after: w.After, stop: func() { _ = syscall.Kill(os.Getpid(), syscall.SIGSTOP) }}
	var dialer net.Dialer
	cc.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return watch.wrap(conn), nil
	}
	db, err := gorm.Open(gormpg.New(gormpg.Config{Conn: stdlib.OpenDB(*cc)}), &gorm.Config{SkipDefaultTransaction: true, Logger: logger.Discard})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	store, schemas := postgres.New(db), catalog.DefaultRegistry()
	switch w.Mode {
	case "reindex":
		return catalog.NewReindexer(store, schemas, embedding.Hash{}, w.Reindex, w.Holder, log).Run(ctx)
	case "reembed":
		cfg := catalog.ReembedConfig{Interval: 100 * time.Millisecond, Batch: 16, Lease: time.Minute, BackoffBase: time.Second, BackoffMax: time.Second}
		return catalog.NewReembedder(store, schemas, embedding.Hash{}, cfg, log).Run(ctx)
	}
	return fmt.Errorf("unknown mode %q", w.Mode)
}
