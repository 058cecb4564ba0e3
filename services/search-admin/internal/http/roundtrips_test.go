package http_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// TestARepeatedHybridSearchRanksAndLoadsInTwoRoundTrips counts the
// statements sent below a search's span once the replica has seen the
// settings and analyzed the query: the keyword ranking and the page's
// load, which also reads the settings; nothing is read before them.
func TestARepeatedHybridSearchRanksAndLoadsInTwoRoundTrips(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	app := newAppOn(t, pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t), embedding.Hash{}, traced(rec))
	app.publish(t, map[string]any{"nome_servico": "Poda de árvores"})
	q := url.Values{"q": {"poda de arvores"}, "mode": {"hybrid"}, "per_page": {"1"}}
	for range 3 {
		if page := app.searchPage(t, q); len(page.Data) != 1 {
			t.Fatalf("the search found %d servicos", len(page.Data))
		}
	}
	tree := treeOf(rec)
	searches := tree.named("GET /api/v1/search")
	if len(searches) != 3 {
		t.Fatalf("%d search spans", len(searches))
	}
	last := slices.MaxFunc(searches, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	var sent []string
	for _, s := range tree {
		if text := statementText(s); text != "" && tree.under(s, last) {
			sent = append(sent, strings.Join(strings.Fields(text), " "))
		}
	}
	ranks := slices.IndexFunc(sent, func(q string) bool { return strings.Contains(q, "ts_rank(") })
	loads := slices.IndexFunc(sent, func(q string) bool { return strings.Contains(q, "FROM servicos s WHERE s.id") })
	if len(sent) != 2 || ranks < 0 || loads < 0 || !strings.Contains(sent[loads], "current_version") {
		t.Errorf("a repeated hybrid search sent %d statements, want the ranking and the page with the settings:\n%s",
			len(sent), strings.Join(sent, "\n"))
	}
}

// statementText is the SQL a span executed, or "" when it is no query (a
// statement's preparation, which a connection does once, counts apart).
func statementText(s sdktrace.ReadOnlySpan) string {
	var text string
	for _, kv := range s.Attributes() {
		switch kv.Key {
		case "pgx.prepare_stmt.name":
			return ""
		case "db.query.text":
			text = kv.Value.AsString()
		}
	}
	return text
}
