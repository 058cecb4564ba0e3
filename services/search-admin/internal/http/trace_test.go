package http_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/polltest"
	searchadmin "github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// traced records the spans of a replica.
func traced(rec *tracetest.SpanRecorder) func(*searchadmin.Config) {
	return func(cfg *searchadmin.Config) {
		cfg.Tracing.Provider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	}
}

// spanTree indexes ended spans by id.
type spanTree map[trace.SpanID]sdktrace.ReadOnlySpan

func treeOf(rec *tracetest.SpanRecorder) spanTree {
	t := spanTree{}
	for _, s := range rec.Ended() {
		t[s.SpanContext().SpanID()] = s
	}
	return t
}

// under reports whether s descends from ancestor.
func (t spanTree) under(s, ancestor sdktrace.ReadOnlySpan) bool {
	for p := s.Parent().SpanID(); p.IsValid(); {
		if p == ancestor.SpanContext().SpanID() {
			return true
		}
		parent, ok := t[p]
		if !ok {
			return false
		}
		p = parent.Parent().SpanID()
	}
	return false
}

// named returns the ended spans called name.
func (t spanTree) named(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range t {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// sqlUnder reports whether a SQL span descends from s.
func (t spanTree) sqlUnder(s sdktrace.ReadOnlySpan) bool {
	for _, c := range t {
		for _, kv := range c.Attributes() {
			if kv.Key == "db.system.name" && kv.Value.AsString() == "postgresql" && t.under(c, s) {
				return true
			}
		}
	}
	return false
}

func TestEmbeddingCallsAndTheReembedWorkerAreTraced(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	var down atomic.Bool
	down.Store(true)
	app := newAppOn(t, pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t), flakyProvider(t, &down),
		fastReembed, traced(rec))
	body := validServico()
	sv := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", body).servico(t, http.StatusCreated)
	if sv.EmbeddingStatus != catalog.EmbeddingPending {
		t.Fatalf("created with embedding %q during the outage", sv.EmbeddingStatus)
	}
	down.Store(false)
	polltest.Until(t, 10*time.Second, "a re-embed run with its embedding call and SQL", func() bool {
		tree := treeOf(rec)
		for _, run := range tree.named("re-embed") {
			for _, e := range tree.named("embeddings text-embedding-3-small") {
				if tree.under(e, run) && e.Status().Code != 1 && tree.sqlUnder(run) {
					return true
				}
			}
		}
		return false
	})

	tree := treeOf(rec)
	create := tree.named("POST /api/v1/admin/services")
	if len(create) != 1 {
		t.Fatalf("%d spans of the create", len(create))
	}
	failed := false
	for _, e := range tree.named("embeddings text-embedding-3-small") {
		attrs := map[string]string{}
		for _, kv := range e.Attributes() {
			attrs[string(kv.Key)] = kv.Value.String()
		}
		if attrs["gen_ai.operation.name"] != "embeddings" || attrs["gen_ai.provider.name"] != "openai" || attrs["gen_ai.request.model"] != "text-embedding-3-small" {
			t.Errorf("embedding span attributes %v", attrs)
		}
		for k, v := range attrs {
			if strings.Contains(v, "IPTU") {
				t.Errorf("embedding span attribute %s carries the text: %q", k, v)
			}
		}
		if tree.under(e, create[0]) && e.Status().Code == 1 {
			failed = true
		}
	}
	if !failed {
		t.Error("the create's failed embedding call is not an error span below the request")
	}
	if !tree.sqlUnder(create[0]) {
		t.Error("no SQL span below the create")
	}

	resp := app.do(http.MethodGet, "/api/v1/search?q=iptu&mode=semantic", "reader", nil)
	if resp.Status != http.StatusOK {
		t.Fatalf("search: %d %s", resp.Status, resp.Body)
	}
	tree = treeOf(rec)
	search := tree.named("GET /api/v1/search")
	if len(search) != 1 {
		t.Fatalf("%d spans of the search", len(search))
	}
	embedded := false
	for _, e := range tree.named("embeddings text-embedding-3-small") {
		embedded = embedded || tree.under(e, search[0])
	}
	if !embedded {
		t.Error("the search's query embedding is not a span below the request")
	}
}

func TestAReindexIsATraceOfItsBatches(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	app := newAppOn(t, pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t), embedding.Hash{}, traced(rec))
	seedServicos(t, app, 30)
	if st := app.reindexAndWait(t, "v1"); st.Reindex.State != catalog.ReindexCompleted {
		t.Fatalf("re-index ended %q", st.Reindex.State)
	}
	polltest.Until(t, 5*time.Second, "the re-index span", func() bool { return len(treeOf(rec).named("re-index")) == 1 })
	tree := treeOf(rec)
	run := tree.named("re-index")[0]
	if run.Parent().IsValid() {
		t.Errorf("the re-index span has parent %v, want a trace of its own", run.Parent())
	}
	batches := 0
	for _, b := range tree.named("re-index batch") {
		if tree.under(b, run) {
			batches++
			if !tree.sqlUnder(b) {
				t.Error("a re-index batch has no SQL span below it")
			}
		}
	}
	if batches == 0 {
		t.Fatal("no re-index batch below the re-index span")
	}
	embeddings := 0
	for _, e := range tree.named("embeddings ngram-fnv1a") {
		if tree.under(e, run) {
			embeddings++
		}
	}
	if embeddings < 30 {
		t.Errorf("%d embedding spans below the re-index, want one per Servico (30)", embeddings)
	}
}
