package main

import (
	"context"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/redistest"
)

func TestRealMainRefusesABadConfiguration(t *testing.T) {
	t.Setenv("RATE_LIMIT_PER_CLIENT", "many-M")
	err := realMain(context.Background())
	if err == nil || !strings.Contains(err.Error(), "RATE_LIMIT_PER_CLIENT") {
		t.Fatalf("realMain = %v, want an error naming RATE_LIMIT_PER_CLIENT", err)
	}
}

func TestRealMainServesUntilCancelled(t *testing.T) {
	t.Setenv("HTTP_ADDR", "127.0.0.1:0")
	t.Setenv("ADMIN_ADDR", "127.0.0.1:0")
	t.Setenv("REDIS_URL", redistest.URL(t))
	t.Setenv("LOG_LEVEL", "error")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := realMain(ctx); err != nil {
		t.Fatalf("realMain = %v, want a clean shutdown", err)
	}
}

func TestTheGatewayCollectsLessOftenUnlessGOGCIsSet(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	debug.SetGCPercent(100)
	collectLessOften()
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("without GOGC the gateway collects at %d%%, want %d%%", got, gcPercent)
	}
	t.Setenv("GOGC", "150")
	collectLessOften()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set the gateway changed the percentage to %d", got)
	}
}
