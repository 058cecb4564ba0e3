package ratelimit_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
)

func rate(t *testing.T, s string) ratelimit.Rate {
	t.Helper()
	r, err := ratelimit.ParseRate(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// metricValue sums the samples of the named series in reg whose labels
// include every name=value pair of labels.
func metricValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if hasLabels(m.GetLabel(), labels) {
				sum += m.GetGauge().GetValue() + m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

func hasLabels(got []*dto.LabelPair, want map[string]string) bool {
	found := 0
	for _, l := range got {
		if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
			found++
		}
	}
	return found == len(want)
}
