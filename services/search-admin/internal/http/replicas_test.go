package http_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
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
