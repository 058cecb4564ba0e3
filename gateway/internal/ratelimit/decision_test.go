package ratelimit_test

import (
	"testing"
	"time"

	"github.com/ulule/limiter/v3"
	"github.com/valyala/fasthttp"

	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
)

func result(kind ratelimit.Kind, limit, remaining, reset int64, reached bool) ratelimit.Result {
	return ratelimit.Result{
		Kind:    kind,
		Rate:    limiter.Rate{Limit: limit, Period: time.Minute},
		Context: limiter.Context{Limit: limit, Remaining: remaining, Reset: reset, Reached: reached},
	}
}

func TestSetHeaders(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_000, 0)
	tests := []struct {
		name     string
		decision ratelimit.Decision
		want     map[string]string
	}{
		{
			name:     "a single limit is reported as is",
			decision: ratelimit.Decision{Results: []ratelimit.Result{result(ratelimit.KindIP, 60, 59, 1_060, false)}},
			want: map[string]string{
				"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "59", "X-RateLimit-Reset": "1060",
				"RateLimit-Policy": `"ip";q=60;w=60`, "RateLimit": `"ip";r=59;t=60`,
			},
		},
		{
			name: "the limit with fewer requests left is the tightest",
			decision: ratelimit.Decision{Results: []ratelimit.Result{
				result(ratelimit.KindClient, 600, 500, 1_030, false),
				result(ratelimit.KindDepartment, 3000, 20, 1_050, false),
			}},
			want: map[string]string{
				"X-RateLimit-Limit": "3000", "X-RateLimit-Remaining": "20", "X-RateLimit-Reset": "1050",
				"RateLimit-Policy": `"client";q=600;w=60, "department";q=3000;w=60`, "RateLimit": `"department";r=20;t=50`,
			},
		},
		{
			name: "a reached limit wins over one with fewer requests left",
			decision: ratelimit.Decision{Results: []ratelimit.Result{
				result(ratelimit.KindClient, 5, 0, 1_010, true),
				result(ratelimit.KindDepartment, 3, 0, 1_040, false),
			}},
			want: map[string]string{"X-RateLimit-Limit": "5", "X-RateLimit-Reset": "1010", "RateLimit": `"client";r=0;t=10`},
		},
		{
			name: "on a tie the later reset is the tightest",
			decision: ratelimit.Decision{Results: []ratelimit.Result{
				result(ratelimit.KindClient, 10, 4, 1_010, false),
				result(ratelimit.KindDepartment, 20, 4, 1_040, false),
			}},
			want: map[string]string{"X-RateLimit-Limit": "20", "X-RateLimit-Reset": "1040"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var h fasthttp.ResponseHeader
			h.Set("X-RateLimit-Limit", "999")
			tt.decision.SetHeaders(&h, now)
			for k, v := range tt.want {
				if got := h.PeekAll(k); len(got) != 1 || string(got[0]) != v {
					t.Errorf("%s = %q, want exactly %q", k, got, v)
				}
			}
		})
	}
}

func TestEmptyDecisionSetsNoHeaders(t *testing.T) {
	t.Parallel()
	var h fasthttp.ResponseHeader
	ratelimit.Decision{}.SetHeaders(&h, time.Now())
	for _, k := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit"} {
		if v := h.Peek(k); v != nil {
			t.Errorf("an empty decision set %s: %q", k, v)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_000, 0)
	tests := []struct {
		name  string
		reset int64
		want  int64
	}{
		{"the seconds until the reset are given", 1_042, 42},
		{"a reset in the past still asks for one second", 999, 1},
		{"a reset now asks for one second", 1_000, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := ratelimit.Decision{Results: []ratelimit.Result{result(ratelimit.KindClient, 5, 0, tt.reset, true)}}
			if got := d.RetryAfter(now); got != tt.want {
				t.Fatalf("RetryAfter = %d, want %d", got, tt.want)
			}
		})
	}
}
