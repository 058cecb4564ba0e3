package idempotency_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/polltest"
	"github.com/municipal-apis/platform/pkg/server"
)

// expire moves the expiry of every stored key into the past.
func (x *harness) expire() {
	x.t.Helper()
	if err := x.db.Exec(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second'`).Error; err != nil {
		x.t.Fatal(err)
	}
}

func TestAnExpiredKeyRunsTheRequestAgain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, secondBody string
	}{
		{"the same request runs again once its key expired", `{"name":"a"}`},
		{"an expired key may carry another request", `{"name":"b"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x := newHarness(t, idempotency.Config{})
			expect(t, x.post("/things", devidptest.JobsAdmin, "k", `{"name":"a"}`), http.StatusCreated)
			x.expire()
			again := x.post("/things", devidptest.JobsAdmin, "k", tt.secondBody)
			expect(t, again, http.StatusCreated)
			if again.Header().Get(idempotency.ReplayedHeader) != "" || x.runs.Load() != 2 || x.rows("things") != 2 {
				t.Errorf("runs %d, things %d, replayed %q: want a second run", x.runs.Load(), x.rows("things"), again.Header().Get(idempotency.ReplayedHeader))
			}
			if n := x.rows("idempotency_keys"); n != 1 {
				t.Errorf("%d keys stored, want the new one only", n)
			}
		})
	}
}

func TestAClaimOfAnEarlierVersionHoldsItsKeyUntilItExpires(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	expect(t, x.post("/things", devidptest.JobsAdmin, "k", `{"name":"a"}`), http.StatusCreated)
	// Turn the stored answer back into the claim an earlier version wrote
	// while it ran a request (during a rolling upgrade, it may still run).
	abandon := func(lease string) {
		err := x.db.Exec(`UPDATE idempotency_keys SET state = 'in_progress', status = NULL, header = NULL, body = NULL,
			expires_at = now() + ?::interval`, lease).Error
		if err != nil {
			t.Fatal(err)
		}
	}
	abandon("1 minute")
	expect(t, x.post("/things", devidptest.JobsAdmin, "k", `{"name":"a"}`), http.StatusConflict)
	abandon("-1 second")
	again := x.post("/things", devidptest.JobsAdmin, "k", `{"name":"a"}`)
	expect(t, again, http.StatusCreated)
	if again.Header().Get(idempotency.ReplayedHeader) != "" || x.runs.Load() != 2 {
		t.Errorf("runs = %d; want the retry to run once the claim expired", x.runs.Load())
	}
	if x.rows("things") != 2 || x.rows("idempotency_keys") != 1 {
		t.Errorf("things %d, keys %d; want the second run stored with its answer", x.rows("things"), x.rows("idempotency_keys"))
	}
}

func TestStoredAnswersLiveForTheTTL(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{TTL: 3 * time.Hour})
	expect(t, x.post("/things", devidptest.JobsAdmin, "done", `{"name":"a"}`), http.StatusCreated)
	var seconds float64
	if err := x.db.Raw(`SELECT extract(epoch FROM expires_at - now()) FROM idempotency_keys WHERE key = 'done'`).Scan(&seconds).Error; err != nil {
		t.Fatal(err)
	}
	if left := time.Duration(seconds * float64(time.Second)); left > 3*time.Hour || left < 3*time.Hour-time.Minute {
		t.Errorf("expires in %v, want about 3h", left)
	}
}

func TestSweepDeletesOnlyExpiredKeys(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	insert := func(n int, lease string) {
		err := x.db.Exec(`INSERT INTO idempotency_keys (client_id, key, fingerprint, state, status, body, expires_at)
			SELECT 'c', ? || g, '\x00'::bytea, 'done', 201, 'x'::bytea, now() + ?::interval FROM generate_series(1, ?) g`, lease, lease, n).Error
		if err != nil {
			t.Fatal(err)
		}
	}
	insert(2500, "-1 hour") // more than one batch
	insert(3, "1 hour")
	deleted, err := x.keys.Sweep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if deleted != 2500 || x.rows("idempotency_keys") != 3 {
		t.Errorf("deleted %d, left %d; want 2500 and 3", deleted, x.rows("idempotency_keys"))
	}
}

func TestRunSweeperSweepsUntilItsContextEnds(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{SweepInterval: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { x.keys.RunSweeper(ctx); close(done) }()
	expect(t, x.post("/things", devidptest.JobsAdmin, "k", `{"name":"a"}`), http.StatusCreated)
	x.expire()
	polltest.Until(t, 10*time.Second, "a later tick deletes the expired key", func() bool { return x.rows("idempotency_keys") == 0 })
	cancel()
	<-done
}

func TestConfigRefusesNegativeDurationsAndDefaultsZeroes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     idempotency.Config
		wantErr bool
	}{
		{"zero fields take the defaults", idempotency.Config{}, false},
		{"positive durations are accepted", idempotency.Config{TTL: time.Hour, SweepInterval: time.Second}, false},
		{"a negative TTL is refused", idempotency.Config{TTL: -time.Hour}, true},
		{"a negative sweep interval is refused", idempotency.Config{SweepInterval: -time.Second}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err != nil) != tt.wantErr {
				t.Fatalf("Validate() = %v, want error %v", err, tt.wantErr)
			}
		})
	}
	if _, err := idempotency.New(nil, idempotency.Config{}, nil); err == nil {
		t.Error("New accepted no database")
	}
}

func TestMountedWithoutAuthenticationAKeyIsAServerError(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	engine := server.NewGin()
	x.routes(engine.Group("/"), x.keys.Wrap)
	h := server.Handler(server.Options{Logger: slog.New(slog.DiscardHandler), Metrics: server.NewMetrics(), MaxBodyBytes: maxBody, App: engine})
	req := x.request(http.MethodPost, "/things", devidptest.JobsAdmin, `{"name":"a"}`, "k")
	rec := x.send(req)
	expect(t, rec, http.StatusCreated) // the guarded engine, as a control
	x.h = h
	expect(t, x.send(x.request(http.MethodPost, "/things", devidptest.JobsAdmin, `{"name":"a"}`, "k2")), http.StatusInternalServerError)
	if x.runs.Load() != 1 {
		t.Errorf("runs = %d; the unauthenticated engine must not run the handler", x.runs.Load())
	}
}

func TestARequestWhoseSessionEndedWhileItStalledCannotStoreASecondAnswer(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	x.token(devidptest.JobsAdmin)
	stalled := make(chan *httptest.ResponseRecorder)
	go func() { stalled <- x.post("/slow", devidptest.JobsAdmin, "k", `{"name":"a"}`) }()
	polltest.Until(t, 10*time.Second, "the request's handler runs", func() bool { return x.runs.Load() > 0 })
	// The process stalls (SIGSTOP, a long pause) inside its transaction,
	// and the server ends the silent session, as
	// idle_in_transaction_session_timeout does: its key is free again.
	var ended int
	if err := x.db.Raw(`SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity
		WHERE datname = current_database() AND state = 'idle in transaction'`).Scan(&ended).Error; err != nil || ended != 1 {
		t.Fatalf("ended %d sessions (%v); want the stalled request's", ended, err)
	}
	// The stalled request wakes while its client's retry runs.
	close(x.gate)
	answers := []*httptest.ResponseRecorder{x.post("/slow", devidptest.JobsAdmin, "k", `{"name":"a"}`), <-stalled}
	var created []string
	for _, rec := range answers {
		switch rec.Code {
		case http.StatusCreated:
			created = append(created, rec.Body.String())
		case http.StatusConflict: // the other one held the key at that moment
		default:
			t.Errorf("status %d: %s", rec.Code, rec.Body)
		}
	}
	if len(created) == 0 || (len(created) == 2 && created[0] != created[1]) {
		t.Errorf("201 answers %q; want one answer, given to every 201", created)
	}
	if x.runs.Load() != 2 || x.rows("things") != 1 || x.rows("idempotency_keys") != 1 {
		t.Errorf("runs %d, things %d, keys %d; want the stalled run lost and one run stored with its answer",
			x.runs.Load(), x.rows("things"), x.rows("idempotency_keys"))
	}
}
