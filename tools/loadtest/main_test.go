package loadtest_test

import (
	"os"
	"testing"

	"github.com/municipal-apis/platform/pkg/stack"
)

// shared is the stack of every test here; each run's rows carry its own marker.
var shared = stack.NewShared(stack.Options{})

func TestMain(m *testing.M) { os.Exit(stack.Main(m, shared)) }
