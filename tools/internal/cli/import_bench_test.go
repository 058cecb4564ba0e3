package cli_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/stack"
)

// BenchmarkImport measures a bulk import of 200 servicos through the whole
// command (reading, keys, concurrent POSTs, summary) against the real
// platform: the gateway, search-admin with its database, token checks at
// both; it reports lines per second.
func BenchmarkImport(b *testing.B) {
	env := envOf(b, shared.Get(b), stack.CatalogAdmin)
	for _, conc := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			const n = 200
			lines := 0
			for b.Loop() {
				var sb strings.Builder
				for i := range n {
					sb.WriteString(servicoLine(fmt.Sprintf("Serviço %d-%d", lines, i)) + "\n")
				}
				lines += n
				r := run(b, env, sb.String(), "import", "--resource", "servicos", "--no-progress", "--concurrency", fmt.Sprint(conc), "-")
				if r.code != 0 {
					b.Fatalf("import failed: %s", r.stderr)
				}
			}
			b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}
