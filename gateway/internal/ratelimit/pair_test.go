package ratelimit_test

import (
	"context"
	"testing"

	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/pkg/redistest"
)

func TestGetPair(t *testing.T) {
	t.Parallel()
	store, client, prefix, m, _ := newStore(t, redistest.URL(t))
	waitFor(t, "the store uses redis", store.OnRedis)
	lim := ratelimit.New(store, ratelimit.Config{PerClient: rate(t, "2-M"), PerDepartment: rate(t, "100-M"), Unauthenticated: rate(t, "1-M")}, m)
	ctx := context.Background()
	clientKey, deptKey := prefix+":{client:catalog-admin}", prefix+":{department:planejamento}"

	t.Run("a refused request is taken back from the department", func(t *testing.T) {
		for range 3 {
			lim.CountCaller(ctx, "catalog-admin", "planejamento")
		}
		if got := redisCount(t, client, clientKey); got != 3 {
			t.Errorf("client counter = %d, want 3", got)
		}
		if got := redisCount(t, client, deptKey); got != 2 {
			t.Errorf("department counter = %d, want 2: the refused third request must not count", got)
		}
	})
	t.Run("the counters are ulule's: counting without a department continues them", func(t *testing.T) {
		d := lim.CountCaller(ctx, "catalog-admin", "")
		r, ok := d.Limiting()
		if !ok || r.Kind != ratelimit.KindClient || r.Limit != 2 {
			t.Fatalf("limiting %+v %v, want the client limit of 2", r, ok)
		}
		if got := redisCount(t, client, clientKey); got != 4 {
			t.Errorf("client counter = %d, want 4", got)
		}
	})
	t.Run("a Redis that forgot the script gets it again", func(t *testing.T) {
		if err := client.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		d := lim.CountCaller(ctx, "reader", "planejamento")
		if d.Reached() || len(d.Results) != 2 || !store.OnRedis() {
			t.Fatalf("after SCRIPT FLUSH: %+v, on redis %v; want both counted in redis", d, store.OnRedis())
		}
		if got := redisCount(t, client, deptKey); got != 3 {
			t.Errorf("department counter = %d, want 3", got)
		}
	})
}
