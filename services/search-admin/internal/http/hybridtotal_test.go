package http_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"testing"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/internal/lexicon"
)

// pageThrough reads every page of a search until one comes back empty and
// returns the meta of the first page and every hit's id, in order.
func pageThrough(t *testing.T, search func(page int) catalog.SearchResult) (catalog.SearchMeta, []string) {
	t.Helper()
	first := search(1)
	got := ids(first)
	for page := 2; ; page++ {
		p := search(page)
		if p.Meta.Total != first.Meta.Total || p.Meta.TotalIsLowerBound != first.Meta.TotalIsLowerBound {
			t.Fatalf("page %d: meta %+v differs from page 1's %+v", page, p.Meta, first.Meta)
		}
		if len(p.Data) == 0 {
			return first.Meta, got
		}
		got = append(got, ids(p)...)
	}
}

func TestHybridTotalCountsWhatCanBePaged(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	const published = 30
	for range published {
		app.publish(t, map[string]any{"nome_servico": "Coleta de entulho"})
	}
	app.waitForVectors(t, published)

	t.Run("with every match among the candidates the total is exact", func(t *testing.T) {
		t.Parallel()
		meta, got := pageThrough(t, func(page int) catalog.SearchResult {
			return app.searchPage(t, url.Values{"q": {"coleta entulho"}, "per_page": {"7"}, "page": {strconv.Itoa(page)}})
		})
		if meta.Total != published || len(got) != published || meta.TotalIsLowerBound {
			t.Errorf("meta %+v, paged %d hits; want total %d exact", meta, len(got), published)
		}
	})

	t.Run("with more matches than candidates the total is what can be paged and says it is a lower bound", func(t *testing.T) {
		t.Parallel()
		cfg := catalog.SearchConfig{MinSimilarity: 0.2, Candidates: 10}
		words, err := lexicon.Default()
		if err != nil {
			t.Fatal(err)
		}
		searcher := catalog.NewSearcher(app.store, app.index, app.sync, catalog.DefaultRegistry(), embedding.Hash{}, words, cfg, quiet)
		meta, got := pageThrough(t, func(page int) catalog.SearchResult {
			res, err := searcher.Search(context.Background(), catalog.SearchQuery{Text: "coleta entulho", Mode: catalog.ModeHybrid, Page: page, PerPage: 4})
			if err != nil {
				t.Fatal(err)
			}
			return res
		})
		if meta.Total != len(got) || meta.Total < cfg.Candidates || !meta.TotalIsLowerBound {
			t.Errorf("meta %+v, paged %d hits; want a lower-bound total equal to the hits paged", meta, len(got))
		}
		raw, err := json.Marshal(meta)
		if err != nil {
			t.Fatal(err)
		}
		var members map[string]any
		if err := json.Unmarshal(raw, &members); err != nil || members["total_is_lower_bound"] != true {
			t.Errorf("meta as sent: %s", raw)
		}
	})
}
