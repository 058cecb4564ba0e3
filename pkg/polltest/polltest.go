// Package polltest waits, in tests, for a state that another goroutine or
// process brings about: a store switching to its fallback, a key rotation
// seen, a line logged.
package polltest

import (
	"testing"
	"time"
)

// Until polls cond every 10 ms until it holds, and fails t once timeout has
// passed without it. The timeout bounds a change of state; it is not a speed
// assertion.
func Until(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
