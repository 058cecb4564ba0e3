//go:build !linux

package pg

import (
	"syscall"
	"time"
)

// userTimeout does nothing where TCP_USER_TIMEOUT does not exist; keep-alives
// still apply.
func userTimeout(time.Duration) func(network, address string, c syscall.RawConn) error {
	return nil
}
