package client

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// epochThreshold separates the two readings of X-RateLimit-Reset: values
// below it (before 2001) are seconds from now, as in the IETF draft; values
// above it are Unix epoch seconds, as the platform's gateway sends.
const epochThreshold = 1_000_000_000

// RateLimit is what a response said about the caller's rate limit.
type RateLimit struct {
	// Present reports whether the response carried X-RateLimit-Limit.
	Present bool
	// Limit and Remaining are X-RateLimit-Limit and X-RateLimit-Remaining.
	Limit, Remaining int
	// Reset is when the counter resets (X-RateLimit-Reset); zero when absent.
	Reset time.Time
	// RetryAfter is the wait Retry-After asked for; zero when absent.
	RetryAfter time.Duration
}

// parseRateLimit reads the rate-limit headers of h as seen at now;
// malformed values are treated as absent.
func parseRateLimit(h http.Header, now time.Time) RateLimit {
	var rl RateLimit
	rl.Limit, rl.Present = headerInt(h, "X-RateLimit-Limit")
	rl.Remaining, _ = headerInt(h, "X-RateLimit-Remaining")
	rl.Reset, _ = resetTime(h, now)
	rl.RetryAfter, _ = retryAfter(h, now)
	return rl
}

// retryAfter reads Retry-After as delay seconds or an HTTP date (RFC 9110
// §10.2.3); a date in the past is a zero wait.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	raw := strings.TrimSpace(h.Get("Retry-After"))
	if raw == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(raw, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return seconds(secs), true
	}
	when, err := http.ParseTime(raw)
	if err != nil {
		return 0, false
	}
	return max(when.Sub(now), 0), true
}

// resetTime reads X-RateLimit-Reset as Unix epoch seconds, or as seconds
// from now when the value is too small to be an epoch.
func resetTime(h http.Header, now time.Time) (time.Time, bool) {
	raw := strings.TrimSpace(h.Get("X-RateLimit-Reset"))
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, false
	}
	if n < epochThreshold {
		return now.Add(seconds(n)), true
	}
	return time.Unix(n, 0), true
}

func headerInt(h http.Header, key string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get(key)))
	return n, err == nil
}

// seconds converts n seconds to a Duration, saturating instead of overflowing.
func seconds(n int64) time.Duration {
	const maxSecs = int64(1<<63-1) / int64(time.Second)
	return time.Duration(min(n, maxSecs)) * time.Second
}
