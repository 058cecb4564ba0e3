package ratelimit_test

import (
	"context"
	"testing"

	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/pkg/redistest"
)

func TestLimits(t *testing.T) {
	t.Parallel()
	store, _, _, m, reg := newStore(t, redistest.URL(t))
	waitFor(t, "the store uses redis", store.OnRedis)
	overrides, err := ratelimit.ParseOverrides("educacao=1-M")
	if err != nil {
		t.Fatal(err)
	}
	lim := ratelimit.New(store, ratelimit.Config{
		Unauthenticated: rate(t, "2-M"), PerClient: rate(t, "3-M"), PerDepartment: rate(t, "4-M"), Overrides: overrides,
	}, m)
	ctx := context.Background()

	t.Run("a client is refused after its own limit", func(t *testing.T) {
		for i := range 3 {
			if d := lim.CountCaller(ctx, "catalog-admin", "planejamento"); d.Reached() {
				t.Fatalf("request %d was refused", i+1)
			}
		}
		d := lim.CountCaller(ctx, "catalog-admin", "planejamento")
		if r, ok := d.Limiting(); !ok || r.Kind != ratelimit.KindClient {
			t.Fatalf("fourth request: limiting %v %v, want the client limit", r.Kind, ok)
		}
	})
	t.Run("a second client of the department gets what the first left", func(t *testing.T) {
		if d := lim.CountCaller(ctx, "reader", "planejamento"); d.Reached() {
			t.Fatal("the department's fourth request was refused")
		}
		d := lim.CountCaller(ctx, "reader", "planejamento")
		if r, ok := d.Limiting(); !ok || r.Kind != ratelimit.KindDepartment {
			t.Fatalf("the department's fifth request: limiting %v %v, want the department limit", r.Kind, ok)
		}
	})
	t.Run("a department override replaces the default", func(t *testing.T) {
		if lim.CountCaller(ctx, "other-dept", "educacao").Reached() {
			t.Fatal("the first request of an overridden department was refused")
		}
		if !lim.CountCaller(ctx, "other-dept", "educacao").Reached() {
			t.Fatal("the second request passed a 1-M override")
		}
	})
	t.Run("peeking at an address never counts", func(t *testing.T) {
		for range 5 {
			if lim.PeekIP(ctx, "192.0.2.7").Reached() {
				t.Fatal("peeking refused an address that sent nothing")
			}
		}
	})
	t.Run("an address is refused once its failures reach the limit", func(t *testing.T) {
		lim.CountIP(ctx, "192.0.2.8")
		if lim.PeekIP(ctx, "192.0.2.8").Reached() {
			t.Fatal("an address with one failure of two was refused")
		}
		lim.CountIP(ctx, "192.0.2.8")
		if !lim.PeekIP(ctx, "192.0.2.8").Reached() {
			t.Fatal("an address with two failures of two was let through")
		}
	})
	t.Run("rejections are counted by kind", func(t *testing.T) {
		for kind, want := range map[string]float64{"client": 1, "department": 2, "ip": 1} {
			if got := metricValue(t, reg, "gateway_ratelimit_rejections_total", map[string]string{"kind": kind}); got != want {
				t.Errorf("rejections of kind %s = %v, want %v", kind, got, want)
			}
		}
	})
}
