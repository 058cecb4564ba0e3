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
