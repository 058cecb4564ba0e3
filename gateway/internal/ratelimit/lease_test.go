package ratelimit_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/pkg/polltest"
	"github.com/municipal-apis/platform/pkg/redistest"
)

func TestLeaseSize(t *testing.T) {
	t.Parallel()
	for limit, want := range map[int64]int64{1: 1, 5: 1, 600: 1, 999: 1, 1000: 5, 3000: 15, 100000: 500, 1_000_000_000: ratelimit.MaxLease} {
		if got := ratelimit.LeaseSize(limit); got != want {
			t.Errorf("LeaseSize(%d) = %d, want %d", limit, got, want)
		}
	}
}

// instance is one gateway's limits on a shared Redis key prefix.
type instance struct {
	lim *ratelimit.Limits
	reg *prometheus.Registry
}

// instances returns n stores on the same Redis and key prefix, as n
// gateways sharing one Redis, each with the rates given.
func instances(t *testing.T, n int, client, department string) ([]instance, string) {
	t.Helper()
	url := redistest.URL(t)
	_, _, prefix, _, _ := newStore(t, url)
	out := make([]instance, n)
	for i := range out {
		rc, err := ratelimit.NewRedisClient(url, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = rc.Close() })
		reg := prometheus.NewRegistry()
		m, err := ratelimit.NewMetrics(reg)
		if err != nil {
			t.Fatal(err)
		}
		store := ratelimit.NewStore(rc, prefix, slog.New(slog.NewTextHandler(io.Discard, nil)), m)
		store.Probe(context.Background(), time.Second)
		if !store.OnRedis() {
			t.Fatal("the store does not use redis")
		}
		out[i] = instance{reg: reg, lim: ratelimit.New(store, ratelimit.Config{
			PerClient: rate(t, client), PerDepartment: rate(t, department), Unauthenticated: rate(t, "1-M"),
		}, m)}
	}
	return out, prefix
}

// admitAll sends total requests of one client, spread over the instances
// by workers goroutines each, and returns how many were admitted.
func admitAll(t *testing.T, gws []instance, total, workers int, clientID, department string) int64 {
	t.Helper()
	return admitAllIn(gws, total, workers, clientID, department, func(int) context.Context { return context.Background() })
}

// admitAllIn is admitAll with the requests of worker w made in ctxOf(w).
func admitAllIn(gws []instance, total, workers int, clientID, department string, ctxOf func(w int) context.Context) int64 {
	var admitted, sent atomic.Int64
	var wg sync.WaitGroup
	for w := range workers * len(gws) {
		wg.Go(func() {
			gw, ctx := gws[w%len(gws)], ctxOf(w)
			for sent.Add(1) <= int64(total) {
				if !gw.lim.CountCaller(ctx, clientID, department).Reached() {
					admitted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return admitted.Load()
}

// finished reports whether done is closed, for polltest.Until.
func finished(done <-chan struct{}) func() bool {
	return func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
}

func TestASmallLimitIsExactAcrossInstances(t *testing.T) {
	t.Parallel()
	gws, prefix := instances(t, 2, "5-M", "3000-M")
	if got := admitAll(t, gws, 40, 4, "jobs-admin", "trabalho"); got != 5 {
		t.Fatalf("two instances admitted %d requests under a 5-M client limit, want exactly 5", got)
	}
	client := redisClient(t)
	if got := redisCount(t, client, prefix+":{client:jobs-admin}"); got != 40 {
		t.Errorf("client counter = %d, want 40: below the lease threshold each request is counted in redis", got)
	}
}

func TestLargeLimitsAreLeasedAndNeverExceeded(t *testing.T) {
	t.Parallel()
	const limit = 4000 // a lease of 20
	gws, prefix := instances(t, 2, "4000-M", "1000000-M")
	got := admitAll(t, gws, 6000, 4, "jobs-admin", "trabalho")
	size := ratelimit.LeaseSize(limit)
	// Never more than the limit; less by at most what the other instance
	// holds unspent when the budget runs out.
	if got > limit || got < limit-size*int64(len(gws)-1) {
		t.Fatalf("two instances admitted %d requests under a %d-M limit with leases of %d, want %d to %d",
			got, limit, size, limit-size, limit)
	}
	var trips, admitted float64
	for _, gw := range gws {
		trips += metricValue(t, gw.reg, "gateway_ratelimit_redis_round_trips_total", nil)
		admitted += metricValue(t, gw.reg, "gateway_ratelimit_admitted_total", nil)
	}
	if admitted != float64(got) {
		t.Errorf("gateway_ratelimit_admitted_total = %v, want %d", admitted, got)
	}
	// A lease per 20 admitted, a few spent-out refusals, some racing fetches.
	if perAdmitted := trips / admitted; perAdmitted > 0.1 {
		t.Errorf("%v redis round trips for %v admitted requests (%.3f each), want at most 0.1 with leases of %d", trips, admitted, perAdmitted, size)
	}
	client := redisClient(t)
	if c := redisCount(t, client, prefix+":{client:jobs-admin}"); c < limit {
		t.Errorf("client counter = %d, want at least the %d handed out", c, limit)
	}
	if c := redisCount(t, client, prefix+":{department:trabalho}"); c < got || c > got+2*ratelimit.LeaseSize(1000000) {
		t.Errorf("department counter = %d, want the %d admitted plus at most two leases", c, got)
	}
}

// A client's and its department's leases that run out at different requests
// are fetched by concurrent requests in both orders: one holding the
// department's lease while Redis answers for it, another the client's. The
// first reading the client's lease then must not wait for the second, which
// waits for it: that stalled every request of the client and the department
// for good (the gateway stopped answering under load).
func TestLeasesRunningOutApartDoNotStallRequests(t *testing.T) {
	t.Parallel()
	gws, _ := instances(t, 1, "1000-M", "1400-M") // leases of 5 and 7
	var admitted atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20 {
			admitted.Add(admitAll(t, gws, 1000, 16, fmt.Sprintf("client-%d", i), fmt.Sprintf("dept-%d", i)))
		}
	}()
	polltest.Until(t, 30*time.Second, "20 clients' requests are counted (else counting against a client's and a department's leases deadlocked)", finished(done))
	if got := admitted.Load(); got != 20*1000 {
		t.Errorf("admitted %d of 20 clients' 1000 requests under a 1000-M limit, want all", got)
	}
}

// A request whose caller hangs up while a lease is fetched gives back the
// tokens it took from the leases held here. It must give them back after
// unlocking the lease it fetched, not while holding it: with half the
// requests cancelled, that too stalled the client and the department.
func TestCancelledRequestsDoNotStallLeases(t *testing.T) {
	t.Parallel()
	gws, _ := instances(t, 1, "1000-M", "1400-M")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	halfCancelled := func(w int) context.Context {
		if w%2 == 1 {
			return cancelled
		}
		return context.Background()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20 {
			admitAllIn(gws, 2000, 16, fmt.Sprintf("client-%d", i), fmt.Sprintf("dept-%d", i), halfCancelled)
		}
	}()
	polltest.Until(t, 30*time.Second, "20 clients' requests are answered (else a cancelled request gave a token back while holding a lease it fetched)", finished(done))
}

// Under steady demand, every window of a leased per-second limit admits its
// limit: the lease fetched as a window ends must not carry the spent-out
// window's refusals into the next (every other second admitted nothing).
func TestEveryWindowOfALeasedLimitAdmitsItsLimit(t *testing.T) {
	t.Parallel()
	gws, _ := instances(t, 1, "1000-S", "100000-M") // a lease of 5
	var admitted atomic.Int64
	end := time.Now().Add(3500 * time.Millisecond)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for time.Now().Before(end) {
				if !gws[0].lim.CountCaller(context.Background(), "jobs-admin", "trabalho").Reached() {
					admitted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	// Windows start as soon as the last ends, so 3.5 s of demand fill at
	// least three; every other one empty gives about 2000.
	if got := admitted.Load(); got < 3000 || got > 4000 {
		t.Fatalf("admitted %d in 3.5 s of steady demand under 1000-S, want 3000 to 4000: windows went empty", got)
	}
}

// A client over its limit does not spend its department's budget, leased or not.
func TestARefusedClientLeavesItsDepartmentsLeaseUnspent(t *testing.T) {
	t.Parallel()
	gws, _ := instances(t, 1, "3-M", "2000-M")
	lim := gws[0].lim
	ctx := context.Background()
	for range 10 {
		lim.CountCaller(ctx, "jobs-admin", "trabalho")
	}
	d := lim.CountCaller(ctx, "reader", "trabalho")
	if d.Reached() || len(d.Results) != 2 {
		t.Fatalf("another client of the department: %+v", d)
	}
	if rem := d.Results[1].Remaining; rem != 2000-4 {
		t.Errorf("department remaining = %d after 3 admitted requests of one client and 1 of another, want %d", rem, 2000-4)
	}
}

func TestASpentOutLeaseRefusesWithoutAskingRedis(t *testing.T) {
	t.Parallel()
	gws, _ := instances(t, 1, "1000-M", "1000000-M")
	ctx := context.Background()
	if got := admitAll(t, gws, 1000, 1, "jobs-admin", "trabalho"); got != 1000 {
		t.Fatalf("admitted %d of a 1000-M limit alone, want 1000", got)
	}
	before := metricValue(t, gws[0].reg, "gateway_ratelimit_redis_round_trips_total", nil)
	for range 100 {
		d := gws[0].lim.CountCaller(ctx, "jobs-admin", "trabalho")
		r, ok := d.Limiting()
		if !ok || r.Kind != ratelimit.KindClient || r.Remaining != 0 {
			t.Fatalf("over the limit: limiting %+v %v, want the client limit with nothing left", r, ok)
		}
	}
	// One round trip learns that the window is spent; then none.
	if after := metricValue(t, gws[0].reg, "gateway_ratelimit_redis_round_trips_total", nil); after-before > 1 {
		t.Errorf("100 refusals cost %v redis round trips, want at most 1", after-before)
	}
}

// redisClient is a client of the test Redis, to read counters.
func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	c, err := ratelimit.NewRedisClient(redistest.URL(t), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
