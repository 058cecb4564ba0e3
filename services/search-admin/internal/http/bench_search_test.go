package http_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"
)

// benchCatalogSize is the number of published Servicos searched.
const benchCatalogSize = 10000

// BenchmarkSearch measures GET /api/v1/search through the whole handler
// (token verification, parameter checks, keyword SQL, in-memory vector
// scan, fusion, loading the page) over 10,000 published Servicos, cycling
// through the labeled queries, and reports p50 and p99 latency.
func BenchmarkSearch(b *testing.B) {
	app := newApp(b)
	seedIndexed(b, app, benchCatalogSize)
	var queries []relevanceQuery
	readJSON(b, "queries.json", &queries)
	for _, mode := range allModes {
		b.Run(mode, func(b *testing.B) {
			latencies := make([]time.Duration, 0, b.N)
			i := 0
			for b.Loop() {
				q := url.Values{"q": {queries[i%len(queries)].Q}, "mode": {mode}, "per_page": {"10"}}
				start := time.Now()
				resp := app.do(http.MethodGet, "/api/v1/search?"+q.Encode(), "reader", nil)
				latencies = append(latencies, time.Since(start))
				if resp.Status != http.StatusOK {
					b.Fatalf("search answered %d: %s", resp.Status, resp.Body)
				}
				i++
			}
			reportPercentiles(b, latencies)
		})
	}
}

// BenchmarkMigration measures a full re-index of 10,000 Servicos with the
// hash provider, alternating between v1 and v2, and reports services/s.
func BenchmarkMigration(b *testing.B) {
	app := newApp(b)
	seedIndexed(b, app, benchCatalogSize)
	versions := []string{"v1", "v2"}
	i := 0
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		if st := app.migrateAndWait(b, versions[i%2]); st.CurrentVersion != versions[i%2] {
			b.Fatalf("migration did not switch: %+v", st)
		}
		total += time.Since(start)
		i++
	}
	b.ReportMetric(float64(i*benchCatalogSize)/total.Seconds(), "services/s")
}

// seedIndexed seeds n published Servicos and indexes them in v2 by running
// a migration from v1, the real path of bulk indexing.
func seedIndexed(b *testing.B, app *testApp, n int) {
	b.Helper()
	seedServicos(b, app, n)
	if err := app.db.Exec("UPDATE search_settings SET current_version = 'v1'").Error; err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if st := app.migrateAndWait(b, "v2"); st.CurrentVersion != "v2" {
		b.Fatalf("seed migration did not switch: %+v", st)
	}
	b.Logf("indexed %d servicos in %v", n, time.Since(start))
	if err := app.db.Exec("ANALYZE search_documents").Error; err != nil {
		b.Fatal(err)
	}
	if err := app.sync.LoadAll(context.Background()); err != nil {
		b.Fatal(err)
	}
	if app.index.Len() != n {
		b.Fatalf("index holds %d vectors, want %d", app.index.Len(), n)
	}
}

// reportPercentiles reports the median and 99th-percentile latency.
func reportPercentiles(b *testing.B, latencies []time.Duration) {
	slices.Sort(latencies)
	at := func(p int) float64 {
		return float64(latencies[min(len(latencies)-1, len(latencies)*p/100)].Microseconds()) / 1000
	}
	b.ReportMetric(at(50), "p50-ms")
	b.ReportMetric(at(99), "p99-ms")
}
