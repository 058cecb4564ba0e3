package ratelimit

import (
	"fmt"
	"strings"

	"github.com/ulule/limiter/v3"
)

// Rate is a number of requests per period, written "100-M", "10-S", "1000-H" or "5-D".
type Rate struct{ limiter.Rate }

// ParseRate reads a rate in the "<limit>-<S|M|H|D>" form; the limit must be positive.
func ParseRate(s string) (Rate, error) {
	r, err := limiter.NewRateFromFormatted(strings.TrimSpace(s))
	if err != nil {
		return Rate{}, fmt.Errorf("rate %q: want <limit>-<S|M|H|D>: %w", s, err)
	}
	if r.Limit <= 0 {
		return Rate{}, fmt.Errorf("rate %q: the limit must be positive", s)
	}
	return Rate{r}, nil
}

// String returns the rate in the form it was written.
func (r Rate) String() string { return r.Formatted }

// Overrides are per-department rates that replace the default department rate.
type Overrides map[string]Rate

// ParseOverrides reads "department=rate,department=rate".
func ParseOverrides(s string) (Overrides, error) {
	out := Overrides{}
	for entry := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		dept, rate, ok := strings.Cut(entry, "=")
		dept = strings.TrimSpace(dept)
		if !ok || dept == "" {
			return nil, fmt.Errorf("department override %q: want department=rate", entry)
		}
		if _, dup := out[dept]; dup {
			return nil, fmt.Errorf("department override %q: %s appears twice", entry, dept)
		}
		r, err := ParseRate(rate)
		if err != nil {
			return nil, fmt.Errorf("department override %q: %w", entry, err)
		}
		out[dept] = r
	}
	return out, nil
}
