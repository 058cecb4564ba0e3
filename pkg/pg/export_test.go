package pg

import (
	"testing"
	"time"
)

// ShortenMigrateRetry makes migrateSet give a migration that keeps losing
// its locks up after d, for the rest of t.
func ShortenMigrateRetry(t *testing.T, d time.Duration) {
	old := migrateRetryFor
	migrateRetryFor = d
	t.Cleanup(func() { migrateRetryFor = old })
}
