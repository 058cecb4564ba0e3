package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"
)

// writeStats are the outcomes of writes made while a worker was stalled.
type writeStats struct {
	count, failed int
	slowest       time.Duration
	firstFailure  string
}

// writeWhile replaces the Servicos ids one after the other through a's API,
// each request given up after limit, until stop is called.
func (a *testApp) writeWhile(ids []string, limit time.Duration) (stop func() writeStats) {
	var stats writeStats
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			body := with(map[string]any{"nome_servico": fmt.Sprintf("Serviço alterado %d", i), "status": 1})
			start := time.Now()
			resp := a.doWithin(limit, http.MethodPut, "/api/v1/admin/services/"+ids[i%len(ids)], body)
			took := time.Since(start)
			stats.count++
			stats.slowest = max(stats.slowest, took)
			if resp.Status != http.StatusOK {
				stats.failed++
				if stats.firstFailure == "" {
					stats.firstFailure = fmt.Sprintf("%d after %v: %s", resp.Status, took, resp.Body)
				}
			}
		}
	}()
	return func() writeStats {
		close(done)
		<-finished
		return stats
	}
}

// doWithin is do as catalog-admin for a request given up after limit.
func (a *testApp) doWithin(limit time.Duration, method, path string, body any) response {
	raw, err := json.Marshal(body)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, method, path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+a.token("catalog-admin"))
	return a.serve(req)
}
