package ratelimit_test

import (
	"testing"
	"time"

	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
)

func TestParseRate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		limit  int64
		period time.Duration
	}{
		{"a per-minute rate is read", "600-M", 600, time.Minute},
		{"a per-second rate is read", "10-S", 10, time.Second},
		{"a lower-case unit is accepted", "5-h", 5, time.Hour},
		{"surrounding spaces are ignored", " 3-D ", 3, 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := ratelimit.ParseRate(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if r.Limit != tt.limit || r.Period != tt.period {
				t.Fatalf("ParseRate(%q) = %d per %s, want %d per %s", tt.in, r.Limit, r.Period, tt.limit, tt.period)
			}
		})
	}
}

func TestParseRateRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "60", "60-X", "M-60", "-1-M", "0-M", "1.5-M", "60-M-1", "６０-M"} {
		t.Run("the rate "+in+" is refused", func(t *testing.T) {
			t.Parallel()
			if r, err := ratelimit.ParseRate(in); err == nil {
				t.Fatalf("ParseRate(%q) = %v, want an error", in, r)
			}
		})
	}
}

func TestParseOverrides(t *testing.T) {
	t.Parallel()
	o, err := ratelimit.ParseOverrides("educacao=100-M, trabalho = 5000-M,")
	if err != nil {
		t.Fatal(err)
	}
	if len(o) != 2 || o["educacao"].Limit != 100 || o["trabalho"].Limit != 5000 {
		t.Fatalf("ParseOverrides = %v", o)
	}
	empty, err := ratelimit.ParseOverrides("")
	if err != nil || len(empty) != 0 {
		t.Fatalf("ParseOverrides(\"\") = %v, %v; want no overrides", empty, err)
	}
	for _, in := range []string{"educacao", "=100-M", "educacao=abc", "a=1-M,a=2-M"} {
		t.Run("the override list "+in+" is refused", func(t *testing.T) {
			if _, err := ratelimit.ParseOverrides(in); err == nil {
				t.Fatalf("ParseOverrides(%q) succeeded", in)
			}
		})
	}
}
