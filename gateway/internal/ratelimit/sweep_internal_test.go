package ratelimit

import (
	"testing"
	"time"
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
