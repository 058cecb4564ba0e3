package idempotency_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
)

// BenchmarkMiddleware measures a POST through token check and middleware to
// a handler that echoes its body: without a key (the baseline), with a new
// key (claim, run, store) and with a key already answered (replay).
func BenchmarkMiddleware(b *testing.B) {
	x := newHarness(b, idempotency.Config{})
	body := `{"name":"Curso de programação","descricao":"uma descrição de tamanho médio"}`
	expect(b, x.post("/echo", devidptest.JobsAdmin, "replayed", body), http.StatusOK)
	cases := []struct {
		name string
		key  func(i int) string
	}{
		{"without a key", func(int) string { return "" }},
		{"with a new key", func(i int) string { return "new-" + strconv.Itoa(i) }},
		{"with an answered key", func(int) string { return "replayed" }},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				if rec := x.post("/echo", devidptest.JobsAdmin, bc.key(i), body); rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
