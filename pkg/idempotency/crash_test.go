package idempotency_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/polltest"
	"github.com/municipal-apis/platform/pkg/problem"
	"gorm.io/gorm"
)

// Each statement of a keyed request (the key lock and lookup, the
// handler's write, the stored answer, COMMIT) may be the last one a
// crashed process or a broken network lets through. Whatever the point,
// the write and its answer are stored both or neither: the request is
// answered once, with the write stored once, and a retry replays it.
func TestACutConnectionLeavesTheWriteAndItsAnswerBothOrNeither(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		statement string
		at        pgtest.Point
		wantRuns  int64
	}{
		{"cut before the key is locked", "SELECT pg_try_advisory_xact_lock", pgtest.Before, 1},
		{"cut before the key is read", "SELECT fingerprint", pgtest.Before, 1},
		{"cut before the handler's write", "INSERT INTO things", pgtest.Before, 2},
		{"cut after the handler's write, before its answer is stored", "INSERT INTO idempotency_keys", pgtest.Before, 2},
		{"cut after the answer is stored, before COMMIT", "commit", pgtest.Before, 2},
		{"cut after COMMIT ran, before its answer came back", "commit", pgtest.After, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			proxy := pgtest.NewProxy(t, testURL(t))
			x := newHarnessOn(t, idempotency.Config{}, proxy.URL())
			x.token(devidptest.JobsAdmin)
			proxy.Sever(tt.statement, tt.at)
			first := x.post("/things", devidptest.JobsAdmin, "k", `{"name":"a"}`)
			expect(t, first, http.StatusCreated)
			if proxy.Cuts() != 1 {
				t.Fatalf("the proxy cut %d connections; the statement %q was never sent", proxy.Cuts(), tt.statement)
			}
			if first.Header().Get(idempotency.ReplayedHeader) != "" {
				t.Error("the answer to the request itself is marked as a replay")
			}
			if x.runs.Load() != tt.wantRuns || x.rows("things") != 1 || x.rows("idempotency_keys") != 1 {
				t.Fatalf("runs %d, things %d, keys %d; want %d runs, the write and its answer stored once",
					x.runs.Load(), x.rows("things"), x.rows("idempotency_keys"), tt.wantRuns)
			}
			again := x.post("/things", devidptest.JobsAdmin, "k", `{"name":"a"}`)
			expect(t, again, http.StatusCreated)
			if again.Header().Get(idempotency.ReplayedHeader) != "true" || again.Body.String() != first.Body.String() || x.runs.Load() != tt.wantRuns {
				t.Errorf("retry: replayed %q, body %s (first %s), runs %d; want the stored answer",
					again.Header().Get(idempotency.ReplayedHeader), again.Body, first.Body, x.runs.Load())
			}
		})
	}
}

// A request whose transaction Postgres lost runs again inside (pg.Atomic),
// on another session, while the lost session may still hold the key's lock:
// its backend is still ending, or, as here, a transaction queued on the
// key takes it as that backend goes. The run again waits for the lock
// rather than answering its own request "still being processed" (a 409 the
// fault suite saw once under CI load).
func TestARequestRunAgainAfterALostSessionWaitsForItsOwnKey(t *testing.T) {
	t.Parallel()
	dsn := testURL(t)
	proxy := pgtest.NewProxy(t, dsn)
	x := newHarnessOn(t, idempotency.Config{}, proxy.URL())
	x.token(devidptest.JobsAdmin)
	proxy.Sever("INSERT INTO things", pgtest.Before)
	answer := make(chan *httptest.ResponseRecorder)
	go func() { answer <- x.post("/slow", devidptest.JobsAdmin, "k", `{"name":"a"}`) }()
	polltest.Until(t, 10*time.Second, "the first run holds the key (its handler runs)", func() bool { return x.runs.Load() > 0 })

	// Another transaction queues on the key: it gets the lock when the cut
	// session's backend ends, and keeps it a moment.
	direct, err := pg.Open(context.Background(), pg.Config{URL: dsn, MaxOpenConns: 4, MaxIdleConns: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close(direct) })
	queued := make(chan error, 1)
	go func() {
		queued <- direct.Transaction(func(tx *gorm.DB) error {
			if err := tx.Exec(`SELECT pg_advisory_xact_lock(hashtext('idempotency_keys'), hashtext(?))`,
				idempotency.LockName(devidptest.JobsAdmin, "k")).Error; err != nil {
				return err
			}
			time.Sleep(300 * time.Millisecond)
			return nil
		})
	}()
	polltest.Until(t, 10*time.Second, "the other transaction queues on the key", func() bool {
		var waiting int64
		if err := direct.Raw(`SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&waiting).Error; err != nil {
			t.Fatal(err)
		}
		return waiting > 0
	})
	close(x.gate) // the handler's write goes out, and its session is cut

	first := <-answer
	expect(t, first, http.StatusCreated)
	if err := <-queued; err != nil {
		t.Fatal(err)
	}
	if proxy.Cuts() != 1 || x.runs.Load() != 2 || x.rows("things") != 1 || x.rows("idempotency_keys") != 1 {
		t.Fatalf("cuts %d, runs %d, things %d, keys %d; want the write run again once and stored once",
			proxy.Cuts(), x.runs.Load(), x.rows("things"), x.rows("idempotency_keys"))
	}
}

func TestAClientThatHangsUpLeavesNothingAndItsRetryRunsOnce(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	ctx, hangUp := context.WithCancel(context.Background())
	req := x.request(http.MethodPost, "/slow", devidptest.JobsAdmin, `{"name":"a"}`, "k").WithContext(ctx)
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- x.send(req) }()
	polltest.Until(t, 10*time.Second, "the request's handler runs", func() bool { return x.runs.Load() > 0 })
	hangUp()
	close(x.gate)
	if rec := <-done; rec.Code != problem.StatusClientClosedRequest {
		t.Fatalf("the abandoned request answered %d, want 499: %s", rec.Code, rec.Body)
	}
	if x.rows("things") != 0 || x.rows("idempotency_keys") != 0 {
		t.Fatalf("things %d, keys %d after the client left; want neither", x.rows("things"), x.rows("idempotency_keys"))
	}
	// The abandoned transaction ends on the server's side once Postgres
	// sees its connection closed, a moment after the handler answered:
	// a retry sent in that moment finds the key's lock held and gets the
	// 409 (Retry-After: 1) a request whose key is in use gets.
	retry := x.post("/slow", devidptest.JobsAdmin, "k", `{"name":"a"}`)
	for end := time.Now().Add(3 * time.Second); retry.Code == http.StatusConflict && time.Now().Before(end); {
		if retry.Header().Get("Retry-After") != "1" {
			t.Fatalf("a retry while the key is in use: 409 without Retry-After: 1: %s", retry.Body)
		}
		time.Sleep(20 * time.Millisecond)
		retry = x.post("/slow", devidptest.JobsAdmin, "k", `{"name":"a"}`)
	}
	expect(t, retry, http.StatusCreated)
	if x.runs.Load() != 2 || x.rows("things") != 1 || retry.Header().Get(idempotency.ReplayedHeader) != "" {
		t.Errorf("runs %d, things %d; want the retry to run once and store once", x.runs.Load(), x.rows("things"))
	}
}

// A keyed request to a Postgres that stopped answering waited out the
// client's bound twice (8 s with a 3 s statement timeout, in a review that
// froze the database): once on the lookup of a stored answer, whose
// failure was passed over, then again on the transaction that locks the
// key, on a new connection to the same silent server.
func TestAKeyedRequestToAServerThatStoppedAnsweringGivesUpAfterOneStatement(t *testing.T) {
	t.Parallel()
	proxy := pgtest.NewProxy(t, testURL(t))
	// No idle connections: a second statement has to open one.
	x := newHarnessWith(t, idempotency.Config{}, pg.Config{URL: proxy.URL(), MaxOpenConns: 4, StatementTimeout: 200 * time.Millisecond})
	x.token(devidptest.JobsAdmin)
	proxy.Sever("SELECT fingerprint", pgtest.Hold)
	rec := x.post("/things", devidptest.JobsAdmin, "k", `{"name":"a"}`)
	expect(t, rec, http.StatusServiceUnavailable)
	if proxy.Cuts() != 1 {
		t.Fatal("the lookup of the stored answer was never sent")
	}
	if n := proxy.Waiting(); n != 0 {
		t.Fatalf("the request opened %d more connections to a server that did not answer its first statement, and waited for them", n)
	}
	if x.runs.Load() != 0 {
		t.Errorf("the handler ran %d times", x.runs.Load())
	}
}
