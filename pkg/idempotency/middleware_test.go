package idempotency_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/polltest"
)

func TestARequestWithoutAKeyPassesThroughUntouched(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	for range 2 {
		expect(t, x.post("/things", devidptest.JobsAdmin, "", `{"name":"a"}`), http.StatusCreated)
	}
	if x.runs.Load() != 2 || x.rows("things") != 2 {
		t.Errorf("runs %d, things %d; want both requests to run", x.runs.Load(), x.rows("things"))
	}
	if n := x.rows("idempotency_keys"); n != 0 {
		t.Errorf("%d keys stored for requests without one", n)
	}
}

func TestAReplayReturnsTheOriginalStatusBodyAndHeaders(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	first := x.post("/things", devidptest.JobsAdmin, "k-1", `{"name":"Tecnologia"}`)
	expect(t, first, http.StatusCreated)
	if first.Header().Get(idempotency.ReplayedHeader) != "" {
		t.Error("the first answer is marked as a replay")
	}
	for range 2 {
		again := x.post("/things", devidptest.JobsAdmin, "k-1", `{"name":"Tecnologia"}`)
		expect(t, again, http.StatusCreated)
		for _, h := range []string{"Location", "Content-Type"} {
			if got, want := again.Header().Get(h), first.Header().Get(h); got != want || want == "" {
				t.Errorf("%s = %q, want %q", h, got, want)
			}
		}
		if again.Body.String() != first.Body.String() {
			t.Errorf("body = %s, want %s", again.Body, first.Body)
		}
		if again.Header().Get(idempotency.ReplayedHeader) != "true" {
			t.Errorf("%s = %q, want true", idempotency.ReplayedHeader, again.Header().Get(idempotency.ReplayedHeader))
		}
	}
	if x.runs.Load() != 1 || x.rows("things") != 1 {
		t.Errorf("runs %d, things %d; want exactly one", x.runs.Load(), x.rows("things"))
	}
}

func TestTheSameKeyForAnotherRequestIsUnprocessable(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	expect(t, x.post("/things", devidptest.JobsAdmin, "k-1", `{"name":"a"}`), http.StatusCreated)
	tests := []struct {
		name string
		req  *http.Request
	}{
		{"another body is a different request", x.request(http.MethodPost, "/things", devidptest.JobsAdmin, `{"name":"b"}`, "k-1")},
		{"the same JSON spaced otherwise is a different request", x.request(http.MethodPost, "/things", devidptest.JobsAdmin, `{"name": "a"}`, "k-1")},
		{"another path is a different request", x.request(http.MethodPost, "/echo", devidptest.JobsAdmin, `{"name":"a"}`, "k-1")},
		{"another query is a different request", x.request(http.MethodPost, "/things?x=1", devidptest.JobsAdmin, `{"name":"a"}`, "k-1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := x.send(tt.req)
			expect(t, rec, http.StatusUnprocessableEntity)
			if field, code := violation(t, rec); field != idempotency.Header || code != "reused" {
				t.Errorf("violation %s/%s, want %s/reused", field, code, idempotency.Header)
			}
		})
	}
	if x.runs.Load() != 1 || x.rows("things") != 1 {
		t.Errorf("runs %d, things %d; a reused key must run nothing", x.runs.Load(), x.rows("things"))
	}
}

func TestClientsReuseTheSameKeyIndependently(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	a := x.post("/things", devidptest.JobsAdmin, "shared", `{"name":"a"}`)
	b := x.post("/things", devidptest.OtherDept, "shared", `{"name":"b"}`)
	expect(t, a, http.StatusCreated)
	expect(t, b, http.StatusCreated)
	if b.Header().Get(idempotency.ReplayedHeader) != "" || a.Header().Get("Location") == b.Header().Get("Location") {
		t.Errorf("the second client got the first one's answer: %s", b.Body)
	}
	if n := x.rows("idempotency_keys"); n != 2 {
		t.Errorf("%d keys stored, want one per client", n)
	}
}

func TestARequestStillRunningAnswersConflictWithRetryAfter(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	first := make(chan *httptest.ResponseRecorder)
	go func() { first <- x.post("/slow", devidptest.JobsAdmin, "k", `{"name":"a"}`) }()
	polltest.Until(t, 10*time.Second, "the first request holds the key (its handler runs)", func() bool { return x.runs.Load() > 0 })
	busy := x.post("/slow", devidptest.JobsAdmin, "k", `{"name":"a"}`)
	expect(t, busy, http.StatusConflict)
	if busy.Header().Get("Retry-After") != "1" {
		t.Errorf("Retry-After = %q, want 1", busy.Header().Get("Retry-After"))
	}
	close(x.gate)
	expect(t, <-first, http.StatusCreated)
	replayed := x.post("/slow", devidptest.JobsAdmin, "k", `{"name":"a"}`)
	expect(t, replayed, http.StatusCreated)
	if x.runs.Load() != 1 || replayed.Header().Get(idempotency.ReplayedHeader) != "true" {
		t.Errorf("runs %d, replayed %q; want one run and then a replay", x.runs.Load(), replayed.Header().Get(idempotency.ReplayedHeader))
	}
}

func TestConcurrentRequestsWithOneKeyRunOnce(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	x.token(devidptest.JobsAdmin)
	const n = 30
	recs := make([]*httptest.ResponseRecorder, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() { <-start; recs[i] = x.post("/things", devidptest.JobsAdmin, "race", `{"name":"a"}`) })
	}
	close(start)
	wg.Wait()
	var created []string
	for _, rec := range recs {
		switch rec.Code {
		case http.StatusCreated:
			created = append(created, rec.Body.String())
		case http.StatusConflict:
		default:
			t.Errorf("status %d: %s", rec.Code, rec.Body)
		}
	}
	if len(created) == 0 {
		t.Fatal("no request was answered 201")
	}
	for _, body := range created {
		if body != created[0] {
			t.Errorf("answers differ: %s and %s", body, created[0])
		}
	}
	if x.runs.Load() != 1 || x.rows("things") != 1 {
		t.Errorf("runs %d, things %d; want exactly one", x.runs.Load(), x.rows("things"))
	}
}

func TestCompletedErrorsAreReplayedButServerErrorsRunAgain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		path      string
		fails     int64
		body      string
		statuses  []int
		wantRuns  int64
		wantThing int64
	}{
		{"a 422 is a completed answer and is replayed", "/things", 0, `{"name":" "}`,
			[]int{http.StatusUnprocessableEntity, http.StatusUnprocessableEntity}, 1, 0},
		{"a 422 from a failed statement outside a transaction of its own is replayed", "/unguarded", 0, `{"name":" "}`,
			[]int{http.StatusUnprocessableEntity, http.StatusUnprocessableEntity}, 1, 0},
		{"a 503 is not stored, so the retry runs and succeeds", "/flaky", 1, `{"name":"a"}`,
			[]int{http.StatusServiceUnavailable, http.StatusCreated, http.StatusCreated}, 2, 1},
		{"a panic releases the key, so the retry runs and succeeds", "/panics", 1, `{"name":"a"}`,
			[]int{http.StatusInternalServerError, http.StatusCreated, http.StatusCreated}, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x := newHarness(t, idempotency.Config{})
			x.fails.Store(tt.fails)
			for i, want := range tt.statuses {
				rec := x.post(tt.path, devidptest.JobsAdmin, "k", tt.body)
				expect(t, rec, want)
				if replayed := rec.Header().Get(idempotency.ReplayedHeader) == "true"; replayed != (i > 0 && want < 500 && tt.statuses[i-1] == want) {
					t.Errorf("answer %d: replayed = %v", i, replayed)
				}
			}
			if x.runs.Load() != tt.wantRuns || x.rows("things") != tt.wantThing {
				t.Errorf("runs %d, things %d; want %d and %d", x.runs.Load(), x.rows("things"), tt.wantRuns, tt.wantThing)
			}
		})
	}
}

func TestTheBodyReachesTheHandlerIntact(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	tests := []struct {
		name, body string
	}{
		{"unicode and odd spacing are kept byte for byte", "{ \"name\" :\t\"Não é São Paulo 🚀\" }\n"},
		{"an empty body stays empty", ""},
		{"a body just under the limit is whole", `{"name":"` + strings.Repeat("x", maxBody-12) + `"}`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := x.post("/echo", devidptest.JobsAdmin, "echo-"+string(rune('a'+i)), tt.body)
			expect(t, rec, http.StatusOK)
			if rec.Body.String() != tt.body {
				t.Fatalf("handler read %d bytes %q, want %d bytes", rec.Body.Len(), rec.Body.String(), len(tt.body))
			}
		})
	}
}

func TestABodyOverTheLimitIsRefusedAndNothingIsStored(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	req := x.request(http.MethodPost, "/things", devidptest.JobsAdmin, `{"name":"`+strings.Repeat("x", maxBody)+`"}`, "big")
	req.ContentLength = -1 // hide the size, so only reading finds it out
	expect(t, x.send(req), http.StatusRequestEntityTooLarge)
	if x.runs.Load() != 0 || x.rows("idempotency_keys") != 0 {
		t.Errorf("runs %d, keys %d; want neither", x.runs.Load(), x.rows("idempotency_keys"))
	}
}

func TestASafeMethodIgnoresTheKey(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	for range 2 {
		expect(t, x.send(x.request(http.MethodGet, "/things", devidptest.JobsAdmin, "", "k")), http.StatusOK)
	}
	if x.runs.Load() != 2 || x.rows("idempotency_keys") != 0 {
		t.Errorf("runs %d, keys %d; a GET must run each time and store nothing", x.runs.Load(), x.rows("idempotency_keys"))
	}
}
