package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/polltest"
	"github.com/municipal-apis/platform/pkg/problem"
	searchadmin "github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/internal/postgres"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

func TestReindexOfFiveThousandServicosKeepsEveryConcurrentWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("load: re-indexes five thousand Servicos under concurrent writes; skipped under -short")
	}
	t.Parallel()
	app := newApp(t)
	seedServicos(t, app, 5000)
	var targets []string
	app.db.Raw("SELECT id::text FROM servicos ORDER BY id LIMIT 300").Scan(&targets)

	resp := app.do(http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", map[string]any{"schema_version": "v1"})
	if resp.Status != http.StatusAccepted {
		t.Fatalf("start: status %d, body %s", resp.Status, resp.Body)
	}
	writes, during, failures := 0, 0, 0
	for i := 0; ; i++ {
		running := app.reindexRunning(t)
		body := with(map[string]any{"nome_servico": fmt.Sprintf("Serviço atualizado %d", i), "status": 1,
			"descricao_completa": fmt.Sprintf("Revisão %d feita durante a migração.", i)})
		for _, w := range []response{
			app.do(http.MethodPut, "/api/v1/admin/services/"+targets[i%len(targets)], "catalog-admin", body),
			app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", with(map[string]any{"nome_servico": fmt.Sprintf("Novo serviço %d", i)})),
		} {
			writes++
			if w.Status >= 300 {
				failures++
				t.Errorf("write %d failed during the re-index: %d %s", writes, w.Status, w.Body)
			}
		}
		if running {
			during += 2
		} else {
			break
		}
	}
	st := app.waitForReindex(t, time.Minute)
	if st.CurrentVersion != "v1" || st.Reindex.State != catalog.ReindexCompleted || st.PreviousVersion == nil || *st.PreviousVersion != "v3" {
		t.Fatalf("after the re-index: current %s, previous %v, re-index %+v", st.CurrentVersion, st.PreviousVersion, st.Reindex)
	}
	if during == 0 || failures > 0 {
		t.Fatalf("%d writes during the re-index, %d failed", during, failures)
	}
	t.Logf("%d writes, %d of them while the re-index ran", writes, during)
	app.assertDocumentsMatch(t, "v1", catalog.SchemaV1)
}

// reindexRunning reports whether a re-index runs now.
func (a *testApp) reindexRunning(t testing.TB) bool {
	st, err := a.store.ReindexStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Reindex != nil && st.Reindex.State == catalog.ReindexRunning
}

// assertDocumentsMatch checks that every Servico has a document of version
// built from its latest data, with an embedding of the schema's dimension.
func (a *testApp) assertDocumentsMatch(t *testing.T, version string, schema catalog.Schema) {
	t.Helper()
	var docs []struct {
		ServicoID, SearchContent string
		Dims                     int
	}
	a.db.Raw(`SELECT servico_id::text AS servico_id, search_content, COALESCE(array_length(embedding, 1), 0) AS dims
FROM search_documents WHERE schema_version = ?`, version).Scan(&docs)
	var ids []string
	a.db.Raw("SELECT id::text FROM servicos").Scan(&ids)
	all, _, err := a.store.ServicosByID(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	content := make(map[string]string, len(docs))
	for _, d := range docs {
		content[d.ServicoID] = d.SearchContent
		if d.Dims != schema.Dimensions {
			t.Errorf("document of %s has %d dimensions, want %d", d.ServicoID, d.Dims, schema.Dimensions)
		}
	}
	stale := 0
	for i := range all {
		got, ok := content[all[i].ID]
		if want := schema.Document(&all[i]).Content; !ok || got != want {
			stale++
			if stale <= 3 {
				t.Errorf("servico %s: %s document %q (present %v), want %q", all[i].ID, version, got, ok, want)
			}
		}
	}
	if stale > 0 || len(all) != len(docs) {
		t.Errorf("%d of %d servicos have a missing or stale %s document (%d documents)", stale, len(all), version, len(docs))
	}
}

// slowEmbedder is the hash provider with a pause before every vector, so a
// runner can be stopped in the middle of a re-index.
type slowEmbedder struct {
	embedding.Hash
	pause time.Duration
}

func (s slowEmbedder) Embed(ctx context.Context, text string, dims int) ([]float32, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(s.pause):
	}
	return s.Hash.Embed(ctx, text, dims)
}

func TestRollbackRestoresTheOldVersionsResultsImmediately(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	// v3 indexes descricao_completa, v1 does not: the word only v3 finds.
	app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", with(map[string]any{
		"status": 1, "descricao_completa": "Atendimento com hidrômetro inteligente.",
	})).servico(t, http.StatusCreated)
	search := func(q string) catalog.SearchResult {
		return app.searchPage(t, url.Values{"q": {q}, "mode": {"keyword"}})
	}
	if page := search("hidrometro"); page.Meta.SchemaVersion != "v3" || page.Meta.Total != 1 {
		t.Fatalf("before the re-index: %+v", page.Meta)
	}
	if st := app.reindexAndWait(t, "v1"); st.CurrentVersion != "v1" {
		t.Fatalf("re-index did not switch: %+v", st)
	}
	if page := search("hidrometro"); page.Meta.SchemaVersion != "v1" || page.Meta.Total != 0 {
		t.Fatalf("after the switch to v1: %+v", page.Meta)
	}
	// Written while v1 is current: v3 is the previous version and is kept fresh.
	app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", with(map[string]any{
		"status": 1, "nome_servico": "Troca de medidor", "descricao_completa": "Novo hidrômetro digital.",
	})).servico(t, http.StatusCreated)

	resp := app.do(http.MethodPost, "/api/v1/admin/migration/rollback", "catalog-admin", nil)
	if resp.Status != http.StatusOK {
		t.Fatalf("rollback: %d %s", resp.Status, resp.Body)
	}
	for _, mode := range []string{catalog.ModeKeyword, catalog.ModeSemantic, catalog.ModeHybrid} {
		page := app.searchPage(t, url.Values{"q": {"hidrometro digital inteligente"}, "mode": {mode}})
		want := 2 // semantic ranking keeps what passes the similarity threshold
		if mode == catalog.ModeSemantic {
			want = min(page.Meta.Total, 2)
		}
		if page.Meta.SchemaVersion != "v3" || page.Meta.Total != want || len(page.Data) == 0 {
			t.Errorf("%s right after the rollback: %+v", mode, page.Meta)
		}
	}
	var st catalog.ReindexStatus
	_ = json.Unmarshal(resp.Body, &st)
	if st.CurrentVersion != "v3" || st.PreviousVersion != nil || st.Reindex.State != catalog.ReindexRolledBack {
		t.Errorf("status after rollback: %s", resp.Body)
	}
	if again := app.do(http.MethodPost, "/api/v1/admin/migration/rollback", "catalog-admin", nil); again.Status != http.StatusConflict {
		t.Errorf("a second rollback answered %d", again.Status)
	}
}

func TestAStartOrRollbackGivesUpOnAStoppedWriterInsteadOfQueueingTheOthers(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	ctx := context.Background()
	// A writer stopped inside its transaction: it holds the settings row
	// FOR SHARE, as every write does, and says nothing more.
	stopped := app.db.WithContext(ctx).Begin()
	defer stopped.Rollback()
	if err := stopped.Exec(`SELECT 1 FROM search_settings FOR SHARE`).Error; err != nil {
		t.Fatal(err)
	}
	for _, op := range []struct {
		name, path string
		body       any
	}{
		{"start", "/api/v1/admin/migration/start", map[string]any{"schema_version": "v1"}},
		{"rollback", "/api/v1/admin/migration/rollback", map[string]any{}},
	} {
		start := time.Now()
		resp := app.doWithin(10*time.Second, http.MethodPost, op.path, op.body)
		if resp.Status != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || time.Since(start) > 5*time.Second {
			t.Errorf("%s while a writer is stopped: %d after %v (%s), want a 503 to retry within seconds", op.name, resp.Status, time.Since(start), resp.Body)
		}
		// Nothing waits behind the given-up start: another write goes through.
		if resp := app.doWithin(5*time.Second, http.MethodPost, "/api/v1/admin/services", validServico()); resp.Status != http.StatusCreated {
			t.Errorf("a write after the %s gave up: %d %s", op.name, resp.Status, resp.Body)
		}
	}
}

// An operation that reads no query parameter or body refuses them rather
// than look as if it honoured them: a rollback told a version goes back to
// the previous one whatever it names, so naming one is a 422, and nothing
// changes.
func TestWhatAnOperationDoesNotReadIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	sv := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico()).servico(t, http.StatusCreated)
	if st := app.reindexAndWait(t, "v1"); st.CurrentVersion != "v1" {
		t.Fatalf("re-index did not switch: %+v", st)
	}
	status := func() catalog.ReindexStatus {
		t.Helper()
		resp := app.do(http.MethodGet, "/api/v1/admin/migration/status", "catalog-admin", nil)
		var st catalog.ReindexStatus
		if err := json.Unmarshal(resp.Body, &st); err != nil || resp.Status != http.StatusOK {
			t.Fatalf("status: %d %s", resp.Status, resp.Body)
		}
		return st
	}
	refused := func(method, path string, body any, want int, field string) {
		t.Helper()
		resp := app.do(method, path, "catalog-admin", body)
		if resp.Status != want {
			t.Errorf("%s %s %v: %d %s, want %d", method, path, body, resp.Status, resp.Body, want)
			return
		}
		p := resp.problem(t)
		if field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != field || p.Errors[0].Code != "unknown_field") {
			t.Errorf("%s %s %v: errors %+v, want %s unknown_field", method, path, body, p.Errors, field)
		}
	}

	refused(http.MethodPost, "/api/v1/admin/migration/rollback", map[string]any{"schema_version": "v2"}, http.StatusUnprocessableEntity, "schema_version")
	refused(http.MethodPost, "/api/v1/admin/migration/rollback", "[", http.StatusBadRequest, "")
	refused(http.MethodPost, "/api/v1/admin/migration/rollback?to=v2", nil, http.StatusUnprocessableEntity, "to")
	refused(http.MethodGet, "/api/v1/admin/migration/status?foo=1", nil, http.StatusUnprocessableEntity, "foo")
	refused(http.MethodGet, "/api/v1/admin/migration/schemas?foo=1&foo=2", nil, http.StatusUnprocessableEntity, "foo")
	if st := status(); st.CurrentVersion != "v1" || st.PreviousVersion == nil || *st.PreviousVersion != "v3" {
		t.Errorf("after the refusals: current %s, previous %v; want v1 and v3 kept", st.CurrentVersion, st.PreviousVersion)
	}

	path := "/api/v1/admin/services/" + sv.ID
	refused(http.MethodPost, path+"/unpublish", map[string]any{"status": 1}, http.StatusUnprocessableEntity, "status")
	refused(http.MethodDelete, path+"?force=true", nil, http.StatusUnprocessableEntity, "force")
	refused(http.MethodGet, path+"?fields=nome_servico", nil, http.StatusUnprocessableEntity, "fields")
	if got := app.do(http.MethodGet, path, "catalog-admin", nil).servico(t, http.StatusOK); got.Status != sv.Status {
		t.Errorf("after the refusals the Servico's status is %d, want %d", got.Status, sv.Status)
	}

	// What the operations do read still works: no body, an empty object.
	if resp := app.do(http.MethodPost, path+"/unpublish", "catalog-admin", map[string]any{}); resp.Status != http.StatusOK {
		t.Errorf("unpublish with {}: %d %s", resp.Status, resp.Body)
	}
	if resp := app.do(http.MethodPost, "/api/v1/admin/migration/rollback", "catalog-admin", nil); resp.Status != http.StatusOK {
		t.Fatalf("rollback: %d %s", resp.Status, resp.Body)
	}
	if st := status(); st.CurrentVersion != "v3" {
		t.Errorf("after the rollback: current %s, want v3", st.CurrentVersion)
	}
}

// A replica that stops (a rollout's SIGTERM ends its background work)
// hands its running re-index over at once: another replica's next poll
// takes it, not a whole lease later, and finishes it. A runner that dies
// without a word is taken over when its lease expires
// (TestAStalledReindexRunnerIsTakenOverWithoutBlockingWritersAndCannotCommitLate).
func TestAStoppingReplicaHandsItsReindexOverAtOnce(t *testing.T) {
	t.Parallel()
	const lease, poll = time.Minute, 200 * time.Millisecond
	slow := func(c *searchadmin.Config) {
		c.Reindex.LeaseTTL, c.Reindex.Poll = lease, poll
	}
	dsn, idp := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t)
	first := wireApp(t, dsn, idp, slowEmbedder{pause: 2 * time.Millisecond}, "replica-a", slow)
	second := wireApp(t, dsn, idp, embedding.Hash{}, "replica-b", slow)
	stopFirst := first.runBackground(context.Background())
	second.runBackground(context.Background())
	seedServicos(t, first, 1500)
	if resp := first.do(http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", map[string]any{"schema_version": "v1"}); resp.Status != http.StatusAccepted {
		t.Fatalf("start: %d %s", resp.Status, resp.Body)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, _ := first.store.ReindexStatus(context.Background())
		if st.Reindex.Processed >= 200 && st.Reindex.LeaseHolder == "replica-a" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first runner made no progress: %+v", st.Reindex)
		}
	}
	stopped := time.Now()
	stopFirst()
	if resp := second.do(http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", map[string]any{"schema_version": "v1"}); resp.Status != http.StatusConflict {
		t.Errorf("a start while the stopped runner's re-index is unfinished answered %d", resp.Status)
	}
	for deadline := stopped.Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, _ := second.store.ReindexStatus(context.Background())
		if st.Reindex.LeaseHolder == "replica-b" || st.Reindex.State != catalog.ReindexRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no hand-over %v after the first replica stopped (lease %v): %+v", time.Since(stopped), lease, st.Reindex)
		}
	}
	st := second.waitForReindex(t, 30*time.Second)
	if m := st.Reindex; m.State != catalog.ReindexCompleted || m.Takeovers != 1 || m.Processed != 1500 || st.CurrentVersion != "v1" {
		t.Fatalf("after the hand-over: current %s, re-index %+v", st.CurrentVersion, m)
	}
	second.assertDocumentsMatch(t, "v1", catalog.SchemaV1)
}

// otherVersion returns a schema version that is not the current one.
func otherVersion(t *testing.T, store *postgres.Store) string {
	t.Helper()
	st, err := store.ReindexStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.CurrentVersion == "v1" {
		return "v2"
	}
	return "v1"
}

// A replica whose runner has stopped (SIGTERM) keeps serving its in-flight
// and draining requests: a re-index it starts then is handed over at once,
// not left to a lease nobody here will run.
func TestAReindexStartedByAStoppedReplicaIsHandedOverAtOnce(t *testing.T) {
	t.Parallel()
	const lease = time.Minute
	dsn := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet)
	first := wireApp(t, dsn, devidptest.Start(t), embedding.Hash{}, "replica-a", func(c *searchadmin.Config) { c.Reindex.LeaseTTL = lease })
	stop := first.runBackground(context.Background())
	polltest.Until(t, 10*time.Second, "the replica's runner runs (it announced itself)", func() bool {
		var n int64
		if err := first.db.Raw(`SELECT count(*) FROM search_replicas WHERE holder = 'replica-a'`).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
	stop()
	target := otherVersion(t, first.store)
	if resp := first.do(http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", map[string]any{"schema_version": target}); resp.Status != http.StatusAccepted {
		t.Fatalf("start: %d %s", resp.Status, resp.Body)
	}
	ri, err := first.store.ClaimReindex(context.Background(), "replica-b", lease, catalog.DefaultRegistry().Versions())
	if err != nil || ri == nil || ri.SchemaVersion != target || ri.Takeovers != 1 {
		t.Fatalf("another replica's claim right after the start = %+v, %v; want the run, taken over", ri, err)
	}
}

// A re-index started just before its replica stops, which the replica's
// runner never claimed, is handed over as the runner stops.
func TestAReindexItsRunnerNeverClaimedIsHandedOverWhenTheRunnerStops(t *testing.T) {
	t.Parallel()
	const lease = time.Minute
	ctx := context.Background()
	dsn := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet)
	store := postgres.New(openDB(t, dsn))
	reindexer := catalog.NewReindexer(store, catalog.DefaultRegistry(), embedding.Hash{},
		catalog.ReindexConfig{LeaseTTL: lease, Poll: time.Second, BatchSize: 100, RetryDelay: time.Second}, "replica-a", quiet)
	target := otherVersion(t, store)
	var v problem.Violations
	if _, _, err := reindexer.Start(ctx, catalog.StartRequest{SchemaVersion: &target}, &v, "test"); err != nil || v.Err() != nil {
		t.Fatalf("start: %v %v", err, v.Err())
	}
	// SIGTERM came before the runner's first claim.
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	if err := reindexer.Run(stopped); err != nil {
		t.Fatal(err)
	}
	ri, err := store.ClaimReindex(ctx, "replica-b", lease, catalog.DefaultRegistry().Versions())
	if err != nil || ri == nil || ri.SchemaVersion != target || ri.Takeovers != 1 {
		t.Fatalf("another replica's claim after the runner stopped = %+v, %v; want the run, taken over", ri, err)
	}
}

// A dry run counts what a re-index would index and writes nothing, and it
// is checked as the start is: an unknown version is a 422, the current
// version and a re-index already running are 409s.
func TestADryRunCountsWritesNothingAndIsCheckedAsTheStart(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet)
	app := wireApp(t, dsn, devidptest.Start(t), embedding.Hash{}, "replica-"+t.Name()) // no runner: a start stays running
	app.publish(t, map[string]any{"nome_servico": "Segunda via de IPTU"})
	app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico()).servico(t, http.StatusCreated)
	current := app.do(http.MethodGet, "/api/v1/admin/migration/status", "catalog-admin", nil)
	var st catalog.ReindexStatus
	if err := json.Unmarshal(current.Body, &st); err != nil || current.Status != http.StatusOK {
		t.Fatalf("status: %d %s", current.Status, current.Body)
	}
	other := "v1"
	if st.CurrentVersion == other {
		other = "v2"
	}
	dry := func(version string, want int) response {
		t.Helper()
		resp := app.do(http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", map[string]any{"schema_version": version, "dry_run": true})
		if resp.Status != want {
			t.Fatalf("dry run to %s: %d %s, want %d", version, resp.Status, resp.Body, want)
		}
		return resp
	}

	var report catalog.DryRunReport
	if err := json.Unmarshal(dry(other, http.StatusOK).Body, &report); err != nil {
		t.Fatal(err)
	}
	want := catalog.DryRunReport{DryRun: true, FromVersion: st.CurrentVersion, SchemaVersion: other, Servicos: 2, Published: 1}
	if report != want {
		t.Errorf("dry run: %+v, want %+v", report, want)
	}
	if app.reindexRunning(t) {
		t.Fatal("a dry run started a re-index")
	}
	dry(st.CurrentVersion, http.StatusConflict)
	dry("v99", http.StatusUnprocessableEntity)

	if resp := app.do(http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", map[string]any{"schema_version": other}); resp.Status != http.StatusAccepted {
		t.Fatalf("start: %d %s", resp.Status, resp.Body)
	}
	dry(other, http.StatusConflict)
}
