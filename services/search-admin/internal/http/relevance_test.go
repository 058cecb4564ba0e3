package http_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// Minimum quality of hybrid search on testdata/relevance, set a little
// below what was measured with the hash provider (see BENCHMARKS.md).
const (
	minHybridMRR     = 0.92
	minHybridRecall5 = 0.94
)

// relevanceQuery is one labeled query of testdata/relevance/queries.json.
type relevanceQuery struct {
	Q        string   `json:"q"`
	Kind     string   `json:"kind"`
	Relevant []string `json:"relevant"`
}

// quality accumulates the metrics of one mode.
type quality struct {
	rr, recall5 float64
	n           int
	misses      []string
}

func (q *quality) add(query relevanceQuery, ranked []string) {
	q.n++
	found := 0
	first := 0
	for i, key := range ranked {
		if slices.Contains(query.Relevant, key) {
			if first == 0 {
				first = i + 1
			}
			if i < 5 {
				found++
			}
		}
	}
	if first > 0 {
		q.rr += 1 / float64(first)
	}
	q.recall5 += float64(found) / float64(len(query.Relevant))
	if first != 1 {
		q.misses = append(q.misses, fmt.Sprintf("%s %q: first relevant at %d, top %v", query.Kind, query.Q, first, ranked[:min(3, len(ranked))]))
	}
}

func (q *quality) mrr() float64    { return q.rr / float64(q.n) }
func (q *quality) recall() float64 { return q.recall5 / float64(q.n) }

func TestRelevanceOfEachModeOnTheLabeledSet(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	keyOf := seedRelevanceSet(t, app)
	var queries []relevanceQuery
	readJSON(t, "queries.json", &queries)
	results := map[string]*quality{}
	for _, mode := range []string{catalog.ModeKeyword, catalog.ModeSemantic, catalog.ModeHybrid} {
		results[mode] = &quality{}
		for _, q := range queries {
			page := app.searchPage(t, url.Values{"q": {q.Q}, "mode": {mode}, "per_page": {"10"}})
			ranked := make([]string, len(page.Data))
			for i, h := range page.Data {
				ranked[i] = keyOf[h.ID]
			}
			results[mode].add(q, ranked)
		}
		r := results[mode]
		t.Logf("%-8s MRR %.3f  recall@5 %.3f  (%d queries, %d services)", mode, r.mrr(), r.recall(), r.n, len(keyOf))
	}
	hybrid := results[catalog.ModeHybrid]
	for _, m := range hybrid.misses {
		t.Logf("hybrid miss: %s", m)
	}
	if hybrid.mrr() < minHybridMRR || hybrid.recall() < minHybridRecall5 {
		t.Errorf("hybrid MRR %.3f (min %.2f), recall@5 %.3f (min %.2f)", hybrid.mrr(), minHybridMRR, hybrid.recall(), minHybridRecall5)
	}
}

// seedRelevanceSet publishes every service of testdata/relevance through the
// API, waits until this replica's vectors hold them all, and maps ids to keys.
func seedRelevanceSet(t *testing.T, app *testApp) map[string]string {
	t.Helper()
	var services []map[string]any
	readJSON(t, "servicos.json", &services)
	keyOf := map[string]string{}
	for _, s := range services {
		key := s["key"].(string)
		delete(s, "key")
		s["status"] = catalog.StatusPublished
		created := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", s).servico(t, http.StatusCreated)
		keyOf[created.ID] = key
	}
	app.waitForVectors(t, len(services))
	return keyOf
}

func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "relevance", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// waitForVectors waits until the replica's index holds n searchable vectors.
func (a *testApp) waitForVectors(t testing.TB, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for a.index.Len() != n {
		if time.Now().After(deadline) {
			t.Fatalf("vector index holds %d vectors, want %d", a.index.Len(), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// searchPage runs GET /api/v1/search as the reader and decodes the page.
func (a *testApp) searchPage(t testing.TB, q url.Values) catalog.SearchResult {
	t.Helper()
	resp := a.do(http.MethodGet, "/api/v1/search?"+q.Encode(), "reader", nil)
	if resp.Status != http.StatusOK {
		t.Fatalf("search %s: status %d, body %s", q.Encode(), resp.Status, resp.Body)
	}
	var page catalog.SearchResult
	if err := json.Unmarshal(resp.Body, &page); err != nil {
		t.Fatalf("decode search page: %v", err)
	}
	return page
}
