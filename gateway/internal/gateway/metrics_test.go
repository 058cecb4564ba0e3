package gateway_test

import (
	"bufio"
	"strconv"
	"strings"
	"testing"
)

// metric returns the value of the /metrics sample written exactly as series
// (a name, or a name with its labels), or "" when there is none.
func metric(t *testing.T, h *harness, series string) string {
	t.Helper()
	resp, body := h.admin(t, "/metrics")
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if value, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			return value
		}
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }

// The counters an alert takes rate() of are exported from the start, at 0:
// a series that appears with its first event is absent to the alert until
// then, and rate() sees no increase in its first sample.
func TestCountersAreExportedBeforeTheirFirstEvent(t *testing.T) {
	t.Parallel()
	h := start(t)
	for _, series := range []string{
		`gateway_ratelimit_rejections_total{kind="ip"}`,
		`gateway_ratelimit_rejections_total{kind="client"}`,
		`gateway_ratelimit_rejections_total{kind="department"}`,
		`gateway_upstream_stale_connections_total{route="/search"}`,
		`gateway_upstream_stale_connections_total{route="/go/v1"}`,
	} {
		if v := metric(t, h, series); v != "0" {
			t.Errorf("%s = %q on a fresh gateway, want 0", series, v)
		}
	}
}
