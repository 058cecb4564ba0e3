package redistest_test

import (
	"context"
	"testing"

	"github.com/municipal-apis/platform/pkg/redistest"
)

func TestSharedRedisAnswersPing(t *testing.T) {
	t.Parallel()
	if got := redistest.URL(t); got == "" {
		t.Fatal("URL returned an empty address")
	}
}

func TestThrowawayServerStopsAndRestarts(t *testing.T) {
	t.Parallel()
	s := redistest.Start(t)
	ctx := context.Background()
	if err := redistest.Ping(ctx, s.Addr()); err != nil {
		t.Fatalf("a started server does not answer: %v", err)
	}
	s.Stop(t)
	if err := redistest.Ping(ctx, s.Addr()); err == nil {
		t.Fatal("a stopped server still answers")
	}
	s.Restart(t)
	if err := redistest.Ping(ctx, s.Addr()); err != nil {
		t.Fatalf("a restarted server does not answer: %v", err)
	}
}

func TestPingFailsOnAClosedPort(t *testing.T) {
	t.Parallel()
	if err := redistest.Ping(context.Background(), "127.0.0.1:1"); err == nil {
		t.Fatal("Ping succeeded against a closed port")
	}
}
