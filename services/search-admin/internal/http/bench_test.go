package http_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkCreateServico measures POST /api/v1/admin/services through the
// whole handler (request id, token verification, decoding, validation, hash
// embedding, one transaction with the tsvector) on real Postgres, and
// reports throughput and the 99th-percentile latency.
func BenchmarkCreateServico(b *testing.B) {
	for _, parallel := range []bool{false, true} {
		name := "serial"
		if parallel {
			name = "parallel"
		}
		b.Run(name, func(b *testing.B) { benchmarkCreate(b, parallel) })
	}
}

func benchmarkCreate(b *testing.B, parallel bool) {
	app := newApp(b)
	body, err := json.Marshal(with(map[string]any{
		"descricao_completa":     "Solicitação da segunda via da guia de pagamento do Imposto Predial e Territorial Urbano.",
		"documentos_necessarios": []string{"Número de inscrição do imóvel", "CPF do proprietário"},
	}))
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	latencies := make([]time.Duration, 0, b.N)
	create := func() {
		start := time.Now()
		resp := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", body)
		elapsed := time.Since(start)
		if resp.Status != http.StatusCreated {
			panic("create answered " + http.StatusText(resp.Status))
		}
		mu.Lock()
		latencies = append(latencies, elapsed)
		mu.Unlock()
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	if parallel {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				create()
			}
		})
	} else {
		for b.Loop() {
			create()
		}
	}
	wall := time.Since(start)
	b.StopTimer()
	slices.Sort(latencies)
	p99 := latencies[min(len(latencies)-1, len(latencies)*99/100)]
	b.ReportMetric(float64(len(latencies))/wall.Seconds(), "req/s")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
}
