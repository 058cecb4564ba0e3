package pg_test

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
)

const waiting = "database not reachable yet"

// openLogged opens cfg with a logger whose lines the test reads.
func openLogged(t *testing.T, cfg pg.Config) (logs string, err error) {
	t.Helper()
	buf := &logtest.Buffer{}
	db, err := pg.Open(context.Background(), cfg, slog.New(slog.NewTextHandler(buf, nil)))
	if err == nil {
		t.Cleanup(func() { _ = pg.Close(db) })
		var one int
		if err := db.Raw(`SELECT 1`).Scan(&one).Error; err != nil || one != 1 {
			t.Errorf("the pool Open returned does not work: %v", err)
		}
	}
	return buf.String(), err
}

// A service started beside its database (a cluster's cold start) used to
// exit at once, into a crash loop whose back-off outlasted the database's
// start.
func TestOpenWaitsForAServerThatIsNotUpYet(t *testing.T) {
	t.Parallel()
	proxy := pgtest.NewProxy(t, pgtest.NewURL(t, emptyMigrations))
	proxy.Refuse(true)
	time.AfterFunc(time.Second, func() { proxy.Refuse(false) })
	logs, err := openLogged(t, pg.Config{URL: proxy.URL(), MaxOpenConns: 2, ConnectWait: time.Minute})
	if err != nil {
		t.Fatalf("Open gave up on a server that came up after a second: %v", err)
	}
	if !strings.Contains(logs, waiting) {
		t.Fatalf("no try was refused, so nothing was waited for; log:\n%s", logs)
	}
}

func TestOpenGivesUpWhenTheServerStaysAway(t *testing.T) {
	t.Parallel()
	proxy := pgtest.NewProxy(t, pgtest.NewURL(t, emptyMigrations))
	proxy.Refuse(true)
	logs, err := openLogged(t, pg.Config{URL: proxy.URL(), MaxOpenConns: 2, ConnectWait: 1500 * time.Millisecond})
	if err == nil || !pg.ConnectionLost(err) {
		t.Fatalf("Open = %v, want the refused connection's error once the wait is over", err)
	}
	if n := strings.Count(logs, waiting); n < 2 {
		t.Fatalf("%d tries logged in 1.5 s of waiting, want several; log:\n%s", n, logs)
	}
	// Zero, as tests and tools open, tries once.
	logs, err = openLogged(t, pg.Config{URL: proxy.URL(), MaxOpenConns: 2})
	if err == nil || strings.Contains(logs, waiting) {
		t.Fatalf("Open without a wait = %v, log:\n%s", err, logs)
	}
}

// A server that answers, but not as configured, is not waited for: the
// configuration has to change.
func TestOpenDoesNotWaitOnAServerThatRefusesTheConfiguration(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(pgtest.NewURL(t, emptyMigrations))
	if err != nil {
		t.Fatal(err)
	}
	u.Path += "_missing"
	logs, err := openLogged(t, pg.Config{URL: u.String(), MaxOpenConns: 2, ConnectWait: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("Open of a database that does not exist = %v", err)
	}
	if strings.Contains(logs, waiting) {
		t.Fatalf("Open waited for a database that does not exist; log:\n%s", logs)
	}
}
