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
	searchadmin "github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// TestARepeatedHybridSearchSendsOnlyTheStatementsItNeeds counts the
// statements sent below a search's span once the replica has seen the
// settings and analyzed the query. Nothing is read before ranking: the
// page's load reads the settings too. With fewer matches than keyword
// candidates or more (here hybrid fuses one of each ranking), the replica
// ranks them itself and the page is the only statement.
func TestARepeatedHybridSearchSendsOnlyTheStatementsItNeeds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		candidates int
		want       []string
	}{
		{"fewer matches than candidates are ranked by the replica", 200, []string{"FROM servicos s WHERE s.id"}},
		{"more matches than candidates are ranked by the replica", 1, []string{"FROM servicos s WHERE s.id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := tracetest.NewSpanRecorder()
			app := newAppOn(t, pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t), embedding.Hash{}, traced(rec),
				func(c *searchadmin.Config) {
					c.Search.KeywordCandidates, c.Search.Candidates = tt.candidates, tt.candidates
				})
			app.publish(t, map[string]any{"nome_servico": "Poda de árvores"})
			app.publish(t, map[string]any{"nome_servico": "Poda de árvores em praças"})
			app.waitForVectors(t, 2)
			q := url.Values{"q": {"poda de arvores"}, "mode": {"hybrid"}, "per_page": {"1"}}
			for range 3 {
				if page := app.searchPage(t, q); len(page.Data) != 1 {
					t.Fatalf("the search found %d servicos", len(page.Data))
				}
			}
			sent := statementsOfLastSearch(t, rec)
			ok := len(sent) == len(tt.want)
			for _, w := range tt.want {
				ok = ok && slices.ContainsFunc(sent, func(q string) bool { return strings.Contains(q, w) })
			}
			if load := slices.IndexFunc(sent, func(q string) bool { return strings.Contains(q, "FROM servicos s WHERE s.id") }); load < 0 || !strings.Contains(sent[load], "current_version") {
				ok = false
			}
			if !ok {
				t.Errorf("a repeated hybrid search sent %d statements, want %q with the settings read by the page's:\n%s",
					len(sent), tt.want, strings.Join(sent, "\n"))
			}
		})
	}
}

// statementsOfLastSearch returns the SQL sent below the last search's span.
func statementsOfLastSearch(t *testing.T, rec *tracetest.SpanRecorder) []string {
	t.Helper()
	tree := treeOf(rec)
	searches := tree.named("GET /api/v1/search")
	if len(searches) == 0 {
		t.Fatal("no search span")
	}
	last := slices.MaxFunc(searches, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	var sent []string
	for _, s := range tree {
		if text := statementText(s); text != "" && tree.under(s, last) {
			sent = append(sent, strings.Join(strings.Fields(text), " "))
		}
	}
	return sent
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
