package ratelimit

import (
	"sync"
	"time"

	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/common"
)

// Leases. Counting every request in Redis costs a round trip per request;
// at large limits an instance instead takes a slice of the window's budget
// (a lease) from the Redis counter with the same script, INCRBY the lease
// size, and spends it in memory, as Kong's sync_rate and Envoy's local plus
// global limits do. The Redis counter stays ulule's: it holds what was
// handed out in the window, one request or one lease at a time, so limits
// below LeaseThreshold, counted one request per call, are exact across
// instances and their counters read as before.
//
// A lease is never larger than what the window has left, so the requests
// admitted in one window never exceed the limit. What a lease costs is
// precision the other way: tokens an instance holds are not available to
// the others until the window ends, so a caller may be refused while up to
// (instances - 1) × lease size of its budget sits unspent elsewhere; and an
// instance spends its lease until the window's end as it saw it when the
// lease came (the counter's PTTL on arrival, so one round trip late at
// most), which lets at most instances × lease size requests of the old
// window through after the new one began. With the lease at 1/LeaseShare of
// the limit (0.5%), both are at most 1% of the limit with two instances.
const (
	// LeaseThreshold is the smallest limit counted by leases; below it every
	// request is one Redis call, exact across instances.
	LeaseThreshold = 1000
	// LeaseShare is the part of the limit one lease takes: limit/LeaseShare.
	LeaseShare = 200
	// MaxLease caps a lease, so a huge limit is still shared in slices.
	MaxLease = 10000
)

// LeaseSize is how much of a window's budget one Redis call takes for a
// limit of n requests: 1 below LeaseThreshold.
func LeaseSize(n int64) int64 {
	if n < LeaseThreshold {
		return 1
	}
	return min(n/LeaseShare, MaxLease)
}

// lease is what this instance holds of one counter's window.
type lease struct {
	mu      sync.Mutex
	left    int64     // tokens taken from Redis and not yet spent
	taken   int64     // the Redis counter after the last lease, capped at the limit's reach: what the window handed out
	expires time.Time // end of the window the tokens belong to
	gone    bool      // swept out of leases: a request that found it before looks the key up again
}

// leases are this instance's leases, by counter key.
type leases struct{ m sync.Map }

func (ls *leases) of(key string) *lease {
	if l, ok := ls.m.Load(key); ok {
		return l.(*lease)
	}
	l, _ := ls.m.LoadOrStore(key, &lease{})
	return l.(*lease)
}

// locked is the lease of key, locked. A lease swept out between the lookup
// and the lock is left alone: tokens fetched into it would be lost to every
// later request, which finds the key's new lease.
func (ls *leases) locked(key string) *lease {
	for {
		l := ls.of(key)
		l.mu.Lock()
		if !l.gone {
			return l
		}
		l.mu.Unlock()
	}
}

// sweep forgets the leases whose window ended before now.
func (ls *leases) sweep(now time.Time) {
	ls.m.Range(func(k, v any) bool {
		l := v.(*lease)
		l.mu.Lock()
		if !now.Before(l.expires) {
			ls.forget(k, l)
		}
		l.mu.Unlock()
		return true
	})
}

// forget removes l, the lease of k, from ls; l's lock is held.
func (ls *leases) forget(k any, l *lease) {
	l.gone = true
	ls.m.Delete(k)
}

// valid reports whether l's tokens belong to the window running at now.
func (l *lease) valid(now time.Time) bool { return now.Before(l.expires) }

// exhausted reports whether the window's whole budget was handed out and
// none of it is left here: refused without asking Redis until the window ends.
func (l *lease) exhausted(now time.Time, limit int64) bool {
	return l.valid(now) && l.left == 0 && l.taken >= limit
}

// fill records the answer of a lease request of size asked: ret is the
// counter after the INCRBY, ttl its milliseconds left.
func (l *lease) fill(asked, ret, ttl int64, rate limiter.Rate, now time.Time) {
	before := ret - asked
	granted := min(max(rate.Limit-before, 0), asked)
	l.left = granted
	l.taken = before + granted
	l.expires = windowEnd(now, ttl, rate.Period)
}

// windowEnd is when a counter's window ends, from the milliseconds Redis
// says its key has left (incrScript's second answer). A key in its last
// millisecond answers 0: its window ends now. Read as a whole period, as
// it once was, a lease fetched then, with the window's budget spent, refused
// every request for one more whole window without asking Redis (under load,
// every other window of a per-second limit admitted nothing). A key without
// an expiry (-1) is given a period, as ulule's store gives it.
func windowEnd(now time.Time, ttl int64, period time.Duration) time.Time {
	switch {
	case ttl > 0:
		return now.Add(time.Duration(ttl) * time.Millisecond)
	case ttl == 0:
		return now
	}
	return now.Add(period)
}

// context is the state of l as ulule reports a counter: what was used
// (handed out and not held here) and, when refused is set, one over the limit.
func (l *lease) context(rate limiter.Rate, now time.Time, refused bool) limiter.Context {
	used := l.taken - l.left
	if refused {
		used = max(used, rate.Limit) + 1
	}
	return common.GetContextFromState(now, rate, l.expires, used)
}
