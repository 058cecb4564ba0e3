package pg_test

import (
	"context"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/problem"
)

// A server that stops answering never sends the cancel of its
// statement_timeout: a statement sent to it, and a connection opened to it,
// end on the client's side a second after that timeout, as a 503. A review
// that froze Postgres behind a proxy saw a request wait 75 s, until its
// client gave up, with a 5 s statement timeout.
func TestAServerThatStopsAnsweringIsA503SoonAfterTheStatementTimeout(t *testing.T) {
	t.Parallel()
	// No idle connections: every statement opens one, so the second one
	// meets the frozen server at its startup.
	proxy, run := selectThroughProxy(t, pg.Config{MaxOpenConns: 4, StatementTimeout: 300 * time.Millisecond})
	proxy.Sever("select 42", pgtest.Hold)
	for _, what := range []string{"a statement the server never answers", "a connection the server never answers"} {
		done := make(chan error, 1)
		go func() { done <- run() }()
		select {
		case err := <-done:
			if !problem.Is(pg.MapError(err, nil), problem.EUNAVAILABLE) {
				t.Errorf("%s: %v, want a 503", what, err)
			}
		case <-time.After(15 * time.Second): // the bound is 1.3 s
			t.Fatalf("%s: still waiting after 15 s", what)
		}
	}
}

// A connection the pool reuses after a second idle is pinged first; a
// server that stopped answering never answers that ping either, and the
// ping ran under the request's context, without a deadline: a review that
// froze Postgres saw such requests wait until it came back (20 s). The
// ping gives the server a second, and the request ends soon after, as a
// 503, when the connection it opens instead hangs at its startup.
func TestAnIdleConnectionsPingToAServerThatStopsAnsweringIsBounded(t *testing.T) {
	t.Parallel()
	proxy, run := selectThroughProxy(t, pg.Config{MaxOpenConns: 2, MaxIdleConns: 2, StatementTimeout: 300 * time.Millisecond})
	time.Sleep(1100 * time.Millisecond) // idle long enough to be pinged
	proxy.Sever("-- ping", pgtest.Hold)
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- run() }()
	select {
	case err := <-done:
		if !problem.Is(pg.MapError(err, nil), problem.EUNAVAILABLE) {
			t.Errorf("a statement on a pinged connection to a frozen server: %v, want a 503", err)
		}
		t.Logf("answered after %v", time.Since(start).Round(time.Millisecond))
	case <-time.After(15 * time.Second): // the bounds are 1 s for the ping and 1.3 s for the new connection
		t.Fatal("a statement on a pinged connection to a frozen server still waits after 15 s")
	}
}

// A statement waits for a connection of the pool within its bound too: a
// review that froze Postgres under load saw requests queue behind
// connections that each took the connect timeout to fail, and answer 11 s
// later. Four statements on a pool of one meet a frozen server: each ends
// within its own bound, as a 503, instead of after those queued before it.
func TestAStatementWaitsForAConnectionWithinItsBound(t *testing.T) {
	t.Parallel()
	proxy, run := selectThroughProxy(t, pg.Config{MaxOpenConns: 1, MaxIdleConns: 1, StatementTimeout: time.Second})
	proxy.Sever("select 42", pgtest.Hold)
	const n = 4
	took := make(chan time.Duration, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			start := time.Now()
			errs <- run()
			took <- time.Since(start)
		}()
	}
	guard := time.After(30 * time.Second)
	for range n {
		select {
		case err := <-errs:
			if !problem.Is(pg.MapError(err, nil), problem.EUNAVAILABLE) {
				t.Errorf("a statement on a frozen server: %v, want a 503", err)
			}
			// The bound is 2 s; four statements queued behind each other's
			// bounds took 8 s.
			if d := <-took; d > 5*time.Second {
				t.Errorf("a statement waited %v for a pool of one on a frozen server, beyond its 2 s bound", d.Round(time.Millisecond))
			}
		case <-guard:
			t.Fatal("statements on a frozen server still wait after 30 s")
		}
	}
}

// selectThroughProxy opens cfg's pool on a fresh database behind a proxy
// and returns the proxy and a statement ("SELECT 42") on the pool, which
// has run once.
func selectThroughProxy(t *testing.T, cfg pg.Config) (*pgtest.Proxy, func() error) {
	t.Helper()
	proxy := pgtest.NewProxy(t, pgtest.NewURL(t, emptyMigrations))
	cfg.URL = proxy.URL()
	db, err := pg.Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close(db) })
	run := func() error {
		var n int
		return db.WithContext(context.Background()).Raw("SELECT 42").Scan(&n).Error
	}
	if err := run(); err != nil {
		t.Fatalf("before the freeze: %v", err)
	}
	return proxy, run
}
