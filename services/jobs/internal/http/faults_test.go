package http_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// terminateBackends ends every other session of the test database every
// interval until ctx is done, as a failover or an administrator would, and
// returns how many it ended. Only this test's own database is touched.
func (e *env) terminateBackends(ctx context.Context, interval time.Duration) <-chan int {
	done := make(chan int, 1)
	go func() {
		total := 0
		defer func() { done <- total }()
		for {
			var n int
			err := e.db.Raw(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n).Error
			if err == nil {
				total += n
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(interval):
			}
		}
	}()
	return done
}

func TestWritesWhileBackendsAreTerminatedAreNever500AndStoredOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.token(admin)
	ctx, stop := context.WithCancel(context.Background())
	terminated := e.terminateBackends(ctx, 100*time.Millisecond)

	const writers, perWriter = 6, 25
	type answer struct {
		status int
		name   string
		id     int64
		retry  string
	}
	answers := make(chan answer, writers*perWriter)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				name := fmt.Sprintf("Nível %d-%d", w, i)
				res := e.do(http.MethodPost, "/api/v1/escolaridades", admin, map[string]any{"nivel": name})
				a := answer{status: res.Status, name: name, retry: res.Header.Get("Retry-After")}
				if res.Status == http.StatusCreated {
					a.id = id(res.object(t))
				}
				answers <- a
			}
		})
	}
	wg.Wait()
	stop()
	close(answers)
	if n := <-terminated; n == 0 {
		t.Fatal("no session was terminated; the test proved nothing")
	}

	statuses := map[int]int{}
	for a := range answers {
		statuses[a.status]++
		switch a.status {
		case http.StatusCreated:
			var stored int64
			if err := e.db.Raw(`SELECT count(*) FROM escolaridades WHERE nivel = ? AND id = ?`, a.name, a.id).Scan(&stored).Error; err != nil {
				t.Fatal(err)
			}
			var named int64
			if err := e.db.Raw(`SELECT count(*) FROM escolaridades WHERE nivel = ?`, a.name).Scan(&named).Error; err != nil {
				t.Fatal(err)
			}
			if stored != 1 || named != 1 {
				t.Errorf("%q answered 201 with id %d: stored %d times under that id, %d times in all", a.name, a.id, stored, named)
			}
		case http.StatusServiceUnavailable:
			if a.retry == "" {
				t.Errorf("a 503 for %q without Retry-After", a.name)
			}
		default:
			t.Errorf("%q answered %d; want 201, or 503 when every retry met a terminated session", a.name, a.status)
		}
	}
	t.Logf("statuses %v", statuses)
	if statuses[http.StatusCreated] == 0 {
		t.Error("no write succeeded between the terminations")
	}
}
