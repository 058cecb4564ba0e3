package http_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
	searchadmin "github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// TestKeywordRankingOfMoreMatchesThanCandidatesFollowsTheCatalog runs keyword
// search where more Servicos match than SEARCH_KEYWORD_CANDIDATES, so only
// the best candidates of the replica's lexical index are ranked: the page
// and the total must be those of ranking every match (a replica with
// candidates off, on the same database), and must follow the catalog's
// changes as the index receives them.
func TestKeywordRankingOfMoreMatchesThanCandidatesFollowsTheCatalog(t *testing.T) {
	t.Parallel()
	dsn, idp := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t)
	bounded := newAppOn(t, dsn, idp, embedding.Hash{}, func(c *searchadmin.Config) { c.Search.KeywordCandidates = 3 })
	every := newAppOn(t, dsn, idp, embedding.Hash{}, func(c *searchadmin.Config) { c.Search.KeywordCandidates = 0 })
	title := bounded.publish(t, map[string]any{"nome_servico": "Certidão negativa de débitos", "resumo": "Emissão da certidão."})
	for _, name := range []string{"Alvará de obra", "Poda de árvore", "Coleta de entulho", "Matrícula escolar", "Vacinação", "Castração de cães"} {
		bounded.publish(t, map[string]any{"nome_servico": name, "resumo": "Serviço municipal.", "descricao_completa": "Pede-se certidão do imóvel."})
	}
	bounded.waitForVectors(t, 7)
	every.waitForVectors(t, 7)
	search := func(app *testApp) catalog.SearchResult {
		return app.searchPage(t, url.Values{"q": {"certidao"}, "mode": {catalog.ModeKeyword}, "per_page": {"2"}})
	}
	got, want := search(bounded), search(every)
	if got.Meta.Total != 7 || want.Meta.Total != 7 || len(got.Data) != 2 || got.Data[0].ID != title.ID || got.Data[0].ID != want.Data[0].ID {
		t.Fatalf("bounded ranking %v (total %d), ranking every match %v (total %d); want the title match first of 7", names(got), got.Meta.Total, names(want), want.Meta.Total)
	}
	if got.Data[0].Score != want.Data[0].Score || got.Data[1].Score != want.Data[1].Score {
		t.Fatalf("scores %v, %v; ranking every match scores %v, %v", got.Data[0].Score, got.Data[1].Score, want.Data[0].Score, want.Data[1].Score)
	}
	if resp := bounded.do(http.MethodPost, "/api/v1/admin/services/"+title.ID+"/unpublish", "catalog-admin", nil); resp.Status != http.StatusOK {
		t.Fatalf("unpublish: %d %s", resp.Status, resp.Body)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got = search(bounded)
		if got.Meta.Total == 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("5 s after an unpublish, bounded keyword search still counts %d matches, want 6", got.Meta.Total)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, h := range got.Data {
		if h.ID == title.ID {
			t.Fatalf("an unpublished Servico is still a hit: %v", names(got))
		}
	}
}

// TestACachedQueryAnalysisFollowsTheCatalogsVocabulary repeats a query
// whose analysis the replica caches: an incomplete last word no catalog
// word equals is a prefix, and once a Servico brings that word into the
// catalog it is a complete word, so the cached analysis must be dropped.
func TestACachedQueryAnalysisFollowsTheCatalogsVocabulary(t *testing.T) {
	t.Parallel()
	app := newAppPublishing(t,
		map[string]any{"nome_servico": "Cadastro Xptoabc", "resumo": "Inscrição no cadastro."},
	)
	q := url.Values{"q": {"xpto"}, "mode": {catalog.ModeKeyword}}
	for range 2 {
		if got := names(app.searchPage(t, q)); len(got) != 1 || got[0] != "Cadastro Xptoabc" {
			t.Fatalf("an incomplete word as a prefix found %v, want [Cadastro Xptoabc]", got)
		}
	}
	app.publish(t, map[string]any{"nome_servico": "Licença Xpto", "resumo": "Licença de funcionamento."})
	app.searchFindsOnly(t, q, "Licença Xpto")
}

// TestCachedTypoCorrectionsFollowTheCatalogsVocabulary repeats a query
// whose typo correction the replica caches: a word no document knows is
// corrected to the nearest catalog word, and once a Servico brings the word
// itself into the catalog it is no typo any more, so the cached correction
// must be dropped.
func TestCachedTypoCorrectionsFollowTheCatalogsVocabulary(t *testing.T) {
	t.Parallel()
	app := newAppPublishing(t,
		map[string]any{"nome_servico": "Licença sanitária", "resumo": "Vigilância de estabelecimentos."},
	)
	q := url.Values{"q": {"licensa "}, "mode": {catalog.ModeKeyword}}
	for range 2 {
		if got := names(app.searchPage(t, q)); len(got) != 1 || got[0] != "Licença sanitária" {
			t.Fatalf("a misspelt word found %v, want its correction's [Licença sanitária]", got)
		}
	}
	app.publish(t, map[string]any{"nome_servico": "Licensa Antiga", "resumo": "Arquivo de licensas."})
	app.searchFindsOnly(t, q, "Licensa Antiga")
}

// searchFindsOnly searches q until it finds only the Servico named name,
// failing the test after 5 s: the replica's cache must follow a catalog
// change its index received.
func (a *testApp) searchFindsOnly(t *testing.T, q url.Values, name string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := names(a.searchPage(t, q))
		if len(got) == 1 && got[0] == name {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("5 s after the catalog learnt the word, %q still finds %v, want only [%s]", q.Get("q"), got, name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestKeywordPagesPastTheCandidatesShowEveryMatchOnce pages through more
// keyword matches than SEARCH_KEYWORD_CANDIDATES, with ranks the cheap
// score cannot tell apart (every Servico has the word in its name, and
// 0-4 more times in its description): every page must be a slice of one
// order, so the pages together show every match once, whatever the page
// size. Ranking each page's own candidates showed some twice and lost others.
func TestKeywordPagesPastTheCandidatesShowEveryMatchOnce(t *testing.T) {
	t.Parallel()
	dsn, idp := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t)
	app := newAppOn(t, dsn, idp, embedding.Hash{}, func(c *searchadmin.Config) { c.Search.KeywordCandidates = 5 })
	const n = 23
	for i := range n {
		app.publish(t, map[string]any{
			"nome_servico":       fmt.Sprintf("Zqxrank serviço %d", i),
			"descricao_completa": "Descrição." + strings.Repeat(" Zqxrank aqui.", (i*7)%5),
		})
	}
	app.waitForVectors(t, n)
	for _, perPage := range []int{2, 4, 7, 10} {
		var seen []string
		for page := 1; (page-1)*perPage < n; page++ {
			q := url.Values{"q": {"zqxrank"}, "mode": {catalog.ModeKeyword}, "per_page": {strconv.Itoa(perPage)}, "page": {strconv.Itoa(page)}}
			p := app.searchPage(t, q)
			if p.Meta.Total != n {
				t.Fatalf("per_page %d, page %d: total %d, want %d", perPage, page, p.Meta.Total, n)
			}
			seen = append(seen, ids(p)...)
		}
		distinct := slices.Compact(slices.Sorted(slices.Values(seen)))
		if len(seen) != n || len(distinct) != n {
			t.Errorf("per_page %d: the pages showed %d hits, %d distinct; want each of the %d matches once", perPage, len(seen), len(distinct), n)
		}
	}
}
