package http_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// benchCatalogSize is the number of published Servicos searched.
const benchCatalogSize = 10000

// BenchmarkSearch measures GET /api/v1/search through the whole handler
// (token verification, parameter checks, keyword SQL, in-memory vector
// scan, fusion, loading the page) over 10,000 published Servicos, cycling
// through the labeled queries, and reports p50 and p99 latency and the mean
// reciprocal rank of the first relevant service at that scale.
func BenchmarkSearch(b *testing.B) {
	app := newApp(b)
	seedIndexed(b, app, benchCatalogSize)
	var queries []relevanceQuery
	readJSON(b, "queries.json", &queries)
	keyOf := keysByName(b)
	for _, mode := range allModes {
		b.Run(mode, func(b *testing.B) {
			latencies := make([]time.Duration, 0, b.N)
			var rr float64
			i := 0
			for b.Loop() {
				query := queries[i%len(queries)]
				q := url.Values{"q": {query.Q}, "mode": {mode}, "per_page": {"10"}}
				start := time.Now()
				resp := app.do(http.MethodGet, "/api/v1/search?"+q.Encode(), "reader", nil)
				latencies = append(latencies, time.Since(start))
				if resp.Status != http.StatusOK {
					b.Fatalf("search answered %d: %s", resp.Status, resp.Body)
				}
				rr += reciprocalRank(b, resp.Body, keyOf, query.Relevant)
				i++
			}
			reportPercentiles(b, latencies)
			b.ReportMetric(rr/float64(i), "mrr")
		})
	}
}

// keysByName maps the name of each relevance service to its key; the
// seeded copies carry that name with a unit number.
func keysByName(b *testing.B) map[string]string {
	var services []struct {
		Key         string `json:"key"`
		NomeServico string `json:"nome_servico"`
	}
	readJSON(b, "servicos.json", &services)
	keys := make(map[string]string, len(services))
	for _, s := range services {
		keys[s.NomeServico] = s.Key
	}
	return keys
}

// reciprocalRank is 1/rank of the first hit of body that is a copy of a
// relevant service, or 0 when the page has none.
func reciprocalRank(b *testing.B, body []byte, keyOf map[string]string, relevant []string) float64 {
	var page catalog.SearchResult
	if err := json.Unmarshal(body, &page); err != nil {
		b.Fatalf("decode search page: %v", err)
	}
	for i, h := range page.Data {
		name, _, _ := strings.Cut(h.NomeServico, " - unidade ")
		if slices.Contains(relevant, keyOf[name]) {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// BenchmarkReindex measures a full re-index of 10,000 Servicos with the
// hash provider, alternating between v1 and v3, and reports services/s.
func BenchmarkReindex(b *testing.B) {
	app := newApp(b)
	seedIndexed(b, app, benchCatalogSize)
	versions := []string{"v1", "v3"}
	i := 0
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		if st := app.reindexAndWait(b, versions[i%2]); st.CurrentVersion != versions[i%2] {
			b.Fatalf("re-index did not switch: %+v", st)
		}
		total += time.Since(start)
		i++
	}
	b.ReportMetric(float64(i*benchCatalogSize)/total.Seconds(), "services/s")
}

// seedIndexed seeds n published Servicos and indexes them in v3 by running
// a re-index from v1, the real path of bulk indexing.
func seedIndexed(b *testing.B, app *testApp, n int) {
	b.Helper()
	seedServicos(b, app, n)
	if err := app.db.Exec("UPDATE search_settings SET current_version = 'v1'").Error; err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if st := app.reindexAndWait(b, "v3"); st.CurrentVersion != "v3" {
		b.Fatalf("seed re-index did not switch: %+v", st)
	}
	b.Logf("indexed %d servicos in %v", n, time.Since(start))
	// Measure the steady state, not the clean-up of the bulk load: without
	// this, autovacuum and the checkpointer work through the seed while the
	// benchmark runs, as they would not under a catalog that changes slowly.
	for _, stmt := range []string{"VACUUM (ANALYZE) servicos, search_documents, search_words", "CHECKPOINT"} {
		if err := app.db.Exec(stmt).Error; err != nil {
			b.Fatalf("%s: %v", stmt, err)
		}
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
