package ratelimit

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ulule/limiter/v3"
)

// Result is the state of one counter after a request.
type Result struct {
	Kind Kind
	Rate limiter.Rate
	limiter.Context
}

// Decision is the set of counters one request touched.
type Decision struct {
	Results []Result
}

// Reached reports whether any limit was exceeded.
func (d Decision) Reached() bool {
	_, ok := d.Limiting()
	return ok
}

// Limiting returns the exceeded limit, if any.
func (d Decision) Limiting() (Result, bool) {
	for _, r := range d.Results {
		if r.Reached {
			return r, true
		}
	}
	return Result{}, false
}

// Tightest returns the limit the client should heed: the exceeded one, else
// the one with the fewest requests left (the later reset on a tie).
func (d Decision) Tightest() (Result, bool) {
	if r, ok := d.Limiting(); ok {
		return r, true
	}
	if len(d.Results) == 0 {
		return Result{}, false
	}
	best := d.Results[0]
	for _, r := range d.Results[1:] {
		if r.Remaining < best.Remaining || (r.Remaining == best.Remaining && r.Reset > best.Reset) {
			best = r
		}
	}
	return best, true
}

// SetHeaders sets, replacing any earlier value, X-RateLimit-Limit,
// X-RateLimit-Remaining and X-RateLimit-Reset (epoch seconds) of the tightest
// limit, and the IETF draft fields RateLimit-Policy (every limit that
// applied) and RateLimit (the tightest).
func (d Decision) SetHeaders(h http.Header, now time.Time) {
	t, ok := d.Tightest()
	if !ok {
		return
	}
	h.Set("X-RateLimit-Limit", strconv.FormatInt(t.Limit, 10))
	h.Set("X-RateLimit-Remaining", strconv.FormatInt(t.Remaining, 10))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(t.Reset, 10))
	policies := make([]string, len(d.Results))
	for i, r := range d.Results {
		policies[i] = fmt.Sprintf("%q;q=%d;w=%d", r.Kind, r.Limit, int64(r.Rate.Period/time.Second))
	}
	h.Set("RateLimit-Policy", strings.Join(policies, ", "))
	h.Set("RateLimit", fmt.Sprintf("%q;r=%d;t=%d", t.Kind, t.Remaining, t.secondsLeft(now)))
}

// RetryAfter returns the whole seconds until the exceeded limit resets, at least 1.
func (d Decision) RetryAfter(now time.Time) int64 {
	r, _ := d.Limiting()
	return max(r.secondsLeft(now), 1)
}

// secondsLeft is the time until r resets, in whole seconds.
func (r Result) secondsLeft(now time.Time) int64 {
	return max(r.Reset-now.Unix(), 0)
}
