package ratelimit

import (
	"testing"
	"time"

	"github.com/ulule/limiter/v3"
)

// A request that found a lease just before the sweep removed it must not
// fill it: the tokens it would take from Redis would be lost to every later
// request, which finds the key's new lease.
func TestASweptLeaseIsLookedUpAgain(t *testing.T) {
	t.Parallel()
	var ls leases
	old := ls.of("k")
	old.mu.Lock() // held, as by a request fetching it
	got := make(chan *lease)
	go func() {
		l := ls.locked("k") // finds old, waits for its lock
		l.mu.Unlock()
		got <- l
	}()
	time.Sleep(50 * time.Millisecond) // let it find old; if it has not, it finds the new lease and passes anyway
	ls.forget("k", old)               // what sweep does, under the lock, once the window ended
	old.mu.Unlock()
	l := <-got
	if l == old {
		t.Fatal("locked returned a lease the sweep had removed")
	}
	if l != ls.of("k") {
		t.Fatal("locked returned a lease that is not the key's")
	}
}

// A lease fetched in the last millisecond of its window, when Redis answers
// 0 ms left, belongs to a window that ends now: read as a whole period, a
// spent-out window refused every request of the next one without asking.
func TestALeaseFetchedInItsWindowsLastMillisecondEndsWithIt(t *testing.T) {
	t.Parallel()
	rate := limiter.Rate{Period: time.Second, Limit: 1000}
	now := time.Now()
	var l lease
	l.fill(5, 1005, 0, rate, now) // the window's 1000 were handed out; 0 ms left
	if l.valid(now) || l.exhausted(now, rate.Limit) {
		t.Fatalf("lease valid until %v at %v: a spent window in its last millisecond refuses the next window's requests", l.expires, now)
	}
	l.fill(5, 5, 1000, rate, now) // a new key: a whole window
	if want := now.Add(time.Second); !l.expires.Equal(want) || l.left != 5 {
		t.Fatalf("new window: %d left until %v, want 5 until %v", l.left, l.expires, want)
	}
	l.fill(5, 10, -1, rate, now) // a key without an expiry: one period, as ulule reads it
	if want := now.Add(time.Second); !l.expires.Equal(want) {
		t.Fatalf("key without expiry: lease until %v, want %v", l.expires, want)
	}
}
