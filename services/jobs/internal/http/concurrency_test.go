package http_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
)

func TestConcurrentCreatesOfOneCategoriaNameYieldOneCreated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.token(admin)
	const n = 50
	statuses := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			name := "Gastronomia"
			if i%2 == 1 {
				name = strings.ToUpper(name)
			}
			statuses[i] = e.do(http.MethodPost, "/api/v1/categorias", admin, map[string]any{"nome": name}).Status
		})
	}
	close(start)
	wg.Wait()
	counts := map[int]int{}
	for _, s := range statuses {
		counts[s]++
	}
	if counts[http.StatusCreated] != 1 || counts[http.StatusConflict] != n-1 {
		t.Errorf("statuses = %v, want one 201 and %d 409s", counts, n-1)
	}
	if rows := e.count("categorias"); rows != 1 {
		t.Errorf("%d categorias stored, want 1", rows)
	}
}
