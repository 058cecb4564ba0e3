package polltest_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/polltest"
)

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	var calls atomic.Int32
	polltest.Until(t, time.Second, "the third look", func() bool { return calls.Add(1) == 3 })
	if n := calls.Load(); n != 3 {
		t.Fatalf("cond was called %d times, want 3", n)
	}
}

func TestUntilFailsTheTestAtTheTimeout(t *testing.T) {
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		polltest.Until(rec, 30*time.Millisecond, "never", func() bool { return false })
	}()
	<-done
	if rec.failed != "gave up waiting until never" {
		t.Fatalf("the failure was %q", rec.failed)
	}
}

// recorder keeps the failure Until reports instead of failing the test.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
