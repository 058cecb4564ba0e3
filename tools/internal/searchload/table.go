package searchload

import (
	"fmt"
	"strings"
)

// Table writes results as a Markdown table.
func Table(results []Result) string {
	var b strings.Builder
	b.WriteString("| catalog | mode | clients | requests | req/s | p50 | p99 | max | errors |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %.0f | %.2f ms | %.2f ms | %.2f ms | %d |\n",
			r.Catalog, r.Mode, r.Clients, r.Requests, r.Rate, r.P50, r.P99, r.Max, r.Errors)
	}
	return b.String()
}
