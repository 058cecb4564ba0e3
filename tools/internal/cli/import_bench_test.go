package cli_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

// BenchmarkImport measures a bulk import of 200 servicos through the whole
// command (reading, keys, concurrent POSTs with token verification, summary)
// against the in-memory API; it reports lines per second.
func BenchmarkImport(b *testing.B) {
	for _, conc := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			api := newFakeAPI(b)
			env := api.env(b, devidptest.CatalogAdmin)
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
