package client

import (
	"net/http"
	"time"
)

// serverWait returns how long the server asked the client to wait: Retry-After
// when present, else, for a 429, the time left until X-RateLimit-Reset. A 503
// ignores X-RateLimit-Reset, which then describes a limit that was not hit.
func serverWait(status int, h http.Header, now time.Time) (time.Duration, bool) {
	if d, ok := retryAfter(h, now); ok {
		return d, true
	}
	if status != http.StatusTooManyRequests {
		return 0, false
	}
	reset, ok := resetTime(h, now)
	if !ok {
		return 0, false
	}
	return max(reset.Sub(now), 0), true
}

// ceiling is the exponential backoff ceiling before retry number attempt
// (from 1): BaseDelay doubled attempt-1 times, capped at MaxDelay.
func (p RetryPolicy) ceiling(attempt int) time.Duration {
	d := p.BaseDelay
	for i := 1; i < attempt && d < p.MaxDelay; i++ {
		d *= 2
	}
	return min(d, p.MaxDelay)
}

// delay returns the wait before the attempt after attempt (from 1), given
// the status and headers of the failed one, and false when the server asked
// for a wait longer than MaxWait. Without a server hint it is full jitter,
// a random wait in [0, ceiling); with one it is the hint plus a random wait
// in [0, BaseDelay), so that clients told the same reset time do not come
// back in lockstep.
func (p RetryPolicy) delay(attempt, status int, h http.Header, now time.Time, jitter func(time.Duration) time.Duration) (time.Duration, bool) {
	hint, ok := serverWait(status, h, now)
	if !ok {
		return jitter(p.ceiling(attempt)), true
	}
	if hint > p.MaxWait {
		return 0, false
	}
	return hint + jitter(p.BaseDelay), true
}
