package proxy

import (
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Every call lands in the series of its route and outcome, first calls of a
// series racing with others included.
func TestMetricsCountEveryCallInItsSeries(t *testing.T) {
	t.Parallel()
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 300 {
				switch i % 3 {
				case 0:
					m.observe("/a", 200, time.Now())
				case 1:
					m.observe("/b", 503, time.Now())
				default:
					m.observeOutcome("/a", "timeout", time.Now())
				}
			}
		})
	}
	wg.Wait()
	for _, s := range [][2]string{{"/a", "200"}, {"/b", "503"}, {"/a", "timeout"}} {
		var got dto.Metric
		if err := m.latency.WithLabelValues(s[0], s[1]).(prometheus.Metric).Write(&got); err != nil {
			t.Fatal(err)
		}
		if n := got.GetHistogram().GetSampleCount(); n != 800 {
			t.Errorf("route %s outcome %s: %d calls, want 800", s[0], s[1], n)
		}
	}
	if n := m.observers.Len(); n != 3 {
		t.Errorf("%d series kept, want 3", n)
	}
}
