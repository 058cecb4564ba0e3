package http_test

import (
	"net/http"
	"net/url"
	"slices"
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

func TestReplicasConvergeEvenWhenANotificationIsLost(t *testing.T) {
	t.Parallel()
	dsn, idp := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t)
	writer := newAppOn(t, dsn, idp, embedding.Hash{})
	reader := newAppOn(t, dsn, idp, embedding.Hash{})

	created := writer.publish(t, map[string]any{"nome_servico": "Castração de gatos"})
	reader.waitForVectors(t, 1)

	// A write whose notification never arrives: only the fingerprint
	// recheck can find it.
	writer.db.Exec("ALTER TABLE servicos DISABLE TRIGGER servicos_notify")
	writer.do(http.MethodPost, "/api/v1/admin/services/"+created.ID+"/unpublish", "catalog-admin", nil).servico(t, http.StatusOK)
	writer.db.Exec("ALTER TABLE servicos ENABLE TRIGGER servicos_notify")
	start := time.Now()
	reader.waitForVectors(t, 0)
	if waited := time.Since(start); waited > 3*indexRecheck {
		t.Errorf("the lost change took %v to arrive, recheck period %v", waited, indexRecheck)
	}

	writer.do(http.MethodPost, "/api/v1/admin/services/"+created.ID+"/publish", "catalog-admin", nil).servico(t, http.StatusOK)
	reader.waitForVectors(t, 1)
	writer.do(http.MethodDelete, "/api/v1/admin/services/"+created.ID, "catalog-admin", nil)
	reader.waitForVectors(t, 0)
	if fp := reader.index.Fingerprint(); fp.Count != 0 || fp.SeqSum != 0 {
		t.Errorf("a deleted servico is still in the index: %+v", fp)
	}
}

// A replica ranks from its index, which learns of a write from the
// database's notification, and loads the page's rows as they are now: in
// between, a Servico just unpublished, made agent-only or moved to another
// tema is still ranked. Its row says what it is, and search must not show
// it (let alone its new contents) to a caller the row no longer admits.
func TestSearchNeverShowsWhatAWriteHasJustHidden(t *testing.T) {
	t.Parallel()
	dsn, idp := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t)
	writer := newAppOn(t, dsn, idp, embedding.Hash{})
	// The reader's index stays as it is for the test: no notification
	// arrives (below), and its fingerprint recheck comes after the test.
	reader := newAppOn(t, dsn, idp, embedding.Hash{}, func(c *searchadmin.Config) { c.Index.Recheck = time.Hour })

	drafted := writer.publish(t, map[string]any{"nome_servico": "Poda de árvores xilofone"})
	agentOnly := writer.publish(t, map[string]any{"nome_servico": "Poda de árvores marimba"})
	moved := writer.publish(t, map[string]any{"nome_servico": "Poda de árvores vibrafone"})
	reader.waitForVectors(t, 3)

	writer.db.Exec("ALTER TABLE servicos DISABLE TRIGGER servicos_notify")
	writer.do(http.MethodPut, "/api/v1/admin/services/"+drafted.ID, "catalog-admin",
		with(map[string]any{"nome_servico": "Poda de árvores xilofone segredo", "status": catalog.StatusDraft})).servico(t, http.StatusOK)
	writer.do(http.MethodPut, "/api/v1/admin/services/"+agentOnly.ID, "catalog-admin",
		with(map[string]any{"nome_servico": "Poda de árvores marimba", "status": catalog.StatusPublished,
			"agents": map[string]any{"exclusive_for_agents": true}})).servico(t, http.StatusOK)
	writer.do(http.MethodPut, "/api/v1/admin/services/"+moved.ID, "catalog-admin",
		with(map[string]any{"nome_servico": "Poda de árvores vibrafone", "status": catalog.StatusPublished,
			"tema_geral": "Meio ambiente"})).servico(t, http.StatusOK)
	writer.db.Exec("ALTER TABLE servicos ENABLE TRIGGER servicos_notify")
	if n := reader.index.Len(); n != 3 {
		t.Fatalf("the reader's index holds %d vectors, want the 3 it held before the writes", n)
	}

	for _, mode := range []string{"keyword", "semantic", "hybrid"} {
		for _, q := range []url.Values{
			{"q": {"poda de árvores xilofone"}},
			{"q": {"poda de árvores marimba"}},
			{"q": {"poda de árvores vibrafone"}, "tema_geral": {"Tributos"}},
		} {
			q.Set("mode", mode)
			hidden := []string{drafted.ID, agentOnly.ID}
			if q.Has("tema_geral") {
				hidden = append(hidden, moved.ID)
			}
			page := reader.searchPage(t, q)
			if page.Meta.Total != len(page.Data) {
				t.Errorf("%s: meta.total %d with %d hits on the only page", q.Encode(), page.Meta.Total, len(page.Data))
			}
			for _, h := range page.Data {
				if slices.Contains(hidden, h.ID) {
					t.Errorf("%s: search showed %q (status %d, agents %+v, tema %q), which the query no longer admits",
						q.Encode(), h.NomeServico, h.Status, h.Agents, h.TemaGeral)
				}
			}
		}
	}
	// The agent-only one still shows where it may.
	q := url.Values{"q": {"poda de árvores marimba"}, "mode": {"keyword"}, "include_agent_only": {"true"}}
	if got := names(reader.searchPage(t, q)); !slices.Contains(got, "Poda de árvores marimba") {
		t.Errorf("include_agent_only=true found %q, want the agent-only Servico", got)
	}
}
