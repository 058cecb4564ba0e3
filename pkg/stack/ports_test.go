package stack

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
)

// The addresses chosen for one program are distinct (a gateway was once
// given the same port for HTTP_ADDR and ADMIN_ADDR and refused to start),
// and fixed ones are kept.
func TestFreeAddrsAreDistinctAndKeepTheFixedOnes(t *testing.T) {
	for range 200 {
		got, err := FreeAddrs([]string{"", "127.0.0.1:1", "", ""})
		if err != nil {
			t.Fatal(err)
		}
		if got[1] != "127.0.0.1:1" {
			t.Fatalf("the fixed address became %s", got[1])
		}
		free := []string{got[0], got[2], got[3]}
		slices.Sort(free)
		if len(slices.Compact(free)) != 3 {
			t.Fatalf("FreeAddrs gave %v: a port twice", got)
		}
	}
}

// A program whose free port is taken before it binds it is started again
// on another: the stack does not fail for a race it lost to another
// process. Not parallel: it swaps pickAddrs.
func TestAProgramThatLostItsPortIsStartedOnAnother(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	calls := 0
	pickAddrs = func(want []string) ([]string, error) {
		calls++
		if calls == 1 {
			return []string{taken.Addr().String()}, nil
		}
		return FreeAddrs(want)
	}
	defer func() { pickAddrs = FreeAddrs }()

	s, err := Start(context.Background(), Options{Programs: []string{IdP}, RedisURL: "redis://127.0.0.1:1/0"})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	if calls != 2 {
		t.Errorf("addresses chosen %d times, want 2", calls)
	}
	if strings.Contains(s.AuthURL, taken.Addr().String()) {
		t.Errorf("devidp serves at %s, the taken address", s.AuthURL)
	}
	if !strings.Contains(s.Logs(), "address already in use") {
		t.Errorf("the log does not show the lost port:\n%s", s.Logs())
	}
	if _, err := s.Token(context.Background(), JobsAdmin); err != nil {
		t.Errorf("Token: %v", err)
	}
}
