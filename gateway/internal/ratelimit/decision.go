package ratelimit

import (
	"strconv"
	"time"

	"github.com/ulule/limiter/v3"
	"github.com/valyala/fasthttp"
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
func (d Decision) SetHeaders(h *fasthttp.ResponseHeader, now time.Time) {
	t, ok := d.Tightest()
	if !ok {
		return
	}
	// Every value is built in one buffer on the stack, which the header
	// copies: no allocation per response.
	var buf [256]byte
	b := strconv.AppendInt(buf[:0], t.Limit, 10)
	limitEnd := len(b)
	b = strconv.AppendInt(b, t.Remaining, 10)
	remainingEnd := len(b)
	b = strconv.AppendInt(b, t.Reset, 10)
	resetEnd := len(b)
	for i, r := range d.Results {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendItem(b, r.Kind)
		b = append(b, ";q="...)
		b = strconv.AppendInt(b, r.Limit, 10)
		b = append(b, ";w="...)
		b = strconv.AppendInt(b, int64(r.Rate.Period/time.Second), 10)
	}
	policyEnd := len(b)
	b = appendItem(b, t.Kind)
	b = append(b, ";r="...)
	b = strconv.AppendInt(b, t.Remaining, 10)
	b = append(b, ";t="...)
	b = strconv.AppendInt(b, t.secondsLeft(now), 10)
	h.SetBytesV("X-Ratelimit-Limit", b[:limitEnd])
	h.SetBytesV("X-Ratelimit-Remaining", b[limitEnd:remainingEnd])
	h.SetBytesV("X-Ratelimit-Reset", b[remainingEnd:resetEnd])
	h.SetBytesV("Ratelimit-Policy", b[resetEnd:policyEnd])
	h.SetBytesV("Ratelimit", b[policyEnd:])
}

// appendItem appends the kind of a limit as a structured-field string.
func appendItem(b []byte, k Kind) []byte {
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"')
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
