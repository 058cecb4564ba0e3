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
	proxy := pgtest.NewProxy(t, pgtest.NewURL(t, emptyMigrations))
	// No idle connections: every statement opens one, so the second one
	// meets the frozen server at its startup.
	db, err := pg.Open(context.Background(), pg.Config{URL: proxy.URL(), MaxOpenConns: 4, StatementTimeout: 300 * time.Millisecond}, nil)
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
