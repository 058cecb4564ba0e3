package idempotency_test

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
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

func TestAClaimLeftByACrashedProcessFreesTheKeyAfterTheLockTimeout(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	expect(t, x.post("/things", devidptest.JobsAdmin, "k", `{"name":"a"}`), http.StatusCreated)
	// Turn the stored answer back into the claim a process would leave
	// behind had it died while running the request.
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
}

func TestStoredAnswersLiveForTheTTLAndClaimsForTheLockTimeout(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{TTL: 3 * time.Hour, LockTimeout: 7 * time.Minute})
	expect(t, x.post("/things", devidptest.JobsAdmin, "done", `{"name":"a"}`), http.StatusCreated)
	first := make(chan int)
	go func() { first <- x.post("/slow", devidptest.JobsAdmin, "running", `{"name":"b"}`).Code }()
	for x.runs.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	tests := []struct {
		name, key string
		want      time.Duration
	}{
		{"a completed answer expires after the TTL", "done", 3 * time.Hour},
		{"a running claim expires after the lock timeout", "running", 7 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seconds float64
			if err := x.db.Raw(`SELECT extract(epoch FROM expires_at - now()) FROM idempotency_keys WHERE key = ?`, tt.key).Scan(&seconds).Error; err != nil {
				t.Fatal(err)
			}
			if left := time.Duration(seconds * float64(time.Second)); left > tt.want || left < tt.want-time.Minute {
				t.Errorf("expires in %v, want about %v", left, tt.want)
			}
		})
	}
	close(x.gate)
	if code := <-first; code != http.StatusCreated {
		t.Errorf("slow request = %d", code)
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
	for x.rows("idempotency_keys") != 0 { // a later tick deletes it
		time.Sleep(5 * time.Millisecond)
	}
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
		{"positive durations are accepted", idempotency.Config{TTL: time.Hour, LockTimeout: time.Minute, SweepInterval: time.Second}, false},
		{"a negative TTL is refused", idempotency.Config{TTL: -time.Hour}, true},
		{"a negative lock timeout is refused", idempotency.Config{LockTimeout: -time.Minute}, true},
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
	x.routes(engine.Group("/"), x.keys.Middleware())
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

func TestARequestThatOutlivesItsClaimNeitherOverwritesNorFreesTheRetrysClaim(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, path string }{
		{"storing its answer", "/slow"},
		{"releasing the key after a failure", "/slowfail"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x := newHarness(t, idempotency.Config{LockTimeout: 200 * time.Millisecond})
			done := make(chan struct{})
			go func() { defer close(done); x.post(tt.path, devidptest.JobsAdmin, "k", `{"name":"a"}`) }()
			for x.rows("idempotency_keys") == 0 {
				time.Sleep(5 * time.Millisecond)
			}
			// The request stalls past its claim, and a retry claims the
			// key again: the row it leaves is the same but for its expiry.
			time.Sleep(300 * time.Millisecond)
			var retry time.Time
			if err := x.db.Raw(`UPDATE idempotency_keys SET expires_at = now() + interval '1 minute'
				WHERE expires_at <= now() RETURNING expires_at`).Scan(&retry).Error; err != nil || retry.IsZero() {
				t.Fatalf("re-claim: %v", err)
			}
			close(x.gate)
			<-done
			var left int64
			if err := x.db.Raw(`SELECT count(*) FROM idempotency_keys WHERE state = 'in_progress' AND expires_at = ?`, retry).Scan(&left).Error; err != nil {
				t.Fatal(err)
			}
			if left != 1 {
				t.Errorf("the late request changed the retry's claim: %d in-progress claims of the retry left", left)
			}
		})
	}
}
