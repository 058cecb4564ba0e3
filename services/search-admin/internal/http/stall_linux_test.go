package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/pgtest"
	searchadmin "github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// workerProcess is a stallWorker running in a child process of the test.
type workerProcess struct {
	cmd  *exec.Cmd
	logs *logtest.Buffer
}

// startWorker runs w in a child process, killed when t ends.
func startWorker(t *testing.T, w stallWorker) *workerProcess {
	t.Helper()
	raw, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	logs := &logtest.Buffer{}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), stallWorkerEnv+"="+string(raw))
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return &workerProcess{cmd: cmd, logs: logs}
}

// waitStopped waits until the worker has stopped itself and returns when
// the test saw it stopped.
func (p *workerProcess) waitStopped(t *testing.T, limit time.Duration) time.Time {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(5 * time.Millisecond) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
		if err != nil {
			t.Fatalf("worker gone: %v; its log:\n%s", err, p.logs)
		}
		state := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))[0]
		switch {
		case state == "T":
			return time.Now()
		case state == "Z" || time.Now().After(deadline):
			t.Fatalf("worker in state %s, not stopped, after %v; its log:\n%s", state, limit, p.logs)
		}
	}
}

// resume wakes the stopped worker.
func (p *workerProcess) resume(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// waitLog waits until the worker has logged a line holding text.
func (p *workerProcess) waitLog(t *testing.T, text string, limit time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(limit); !strings.Contains(p.logs.String(), text); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the worker did not log %q within %v; its log:\n%s", text, limit, p.logs)
		}
	}
}

func TestAStalledReindexRunnerIsTakenOverWithoutBlockingWritersAndCannotCommitLate(t *testing.T) {
	t.Parallel()
	const lease, poll, batch, servicos = 3 * time.Second, 500 * time.Millisecond, 200, 600
	cfg := catalog.ReindexConfig{LeaseTTL: lease, Poll: poll, BatchSize: batch, RetryDelay: 200 * time.Millisecond}
	ctx := context.Background()
	dsn, idp := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t)
	healthy := wireApp(t, dsn, idp, embedding.Hash{}, "healthy-replica", func(c *searchadmin.Config) { c.Reindex = cfg })
	seedServicos(t, healthy, servicos)
	var ids []string
	if err := healthy.db.Raw(`SELECT id::text FROM servicos ORDER BY id`).Scan(&ids).Error; err != nil {
		t.Fatal(err)
	}
	id, _ := uuid.NewV7()
	if err := healthy.store.BeginReindex(ctx, &catalog.Reindex{ID: id.String(), SchemaVersion: "v1", StartedBy: "test", LeaseHolder: "stalled-replica"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	healthy.runBackground(ctx)

	// The runner stops (SIGSTOP) right after sending its second batch.
	worker := startWorker(t, stallWorker{DSN: dsn, Mode: "reindex", Holder: "stalled-replica", Reindex: cfg,
		Pattern: "INSERT INTO search_documents", After: 2})
	stoppedAt := worker.waitStopped(t, time.Minute)
	before, err := healthy.store.ReindexStatus(ctx)
	if err != nil || before.Reindex.LeaseHolder != "stalled-replica" {
		t.Fatalf("when the runner stopped: %+v, %v", before.Reindex, err)
	}
	late := before.Reindex.Lease()

	// Writers on the healthy replica replace Servicos of the stalled batch
	// while the runner is stopped and after the takeover.
	stopWrites := healthy.writeWhile(ids[batch:2*batch], 2*lease)
	var takeover time.Duration
	for deadline := stoppedAt.Add(lease + poll + 20*time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, err := healthy.store.ReindexStatus(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Reindex.LeaseHolder == "healthy-replica" || st.Reindex.State != catalog.ReindexRunning {
			takeover = time.Since(stoppedAt)
			break
		}
		if time.Now().After(deadline) {
			stopWrites()
			t.Fatalf("no takeover %v after the runner stopped: %+v", time.Since(stoppedAt), st.Reindex)
		}
	}
	time.Sleep(time.Second)
	writes := stopWrites()

	// The stalled runner wakes up after the takeover: nothing it sends
	// under its old lease generation may commit.
	worker.resume(t)
	worker.waitLog(t, "re-index stopped: lease lost", 30*time.Second)
	if err := healthy.store.Heartbeat(ctx, late, lease); !errors.Is(err, catalog.ErrLeaseLost) {
		t.Errorf("heartbeat under the late lease %+v = %v, want ErrLeaseLost", late, err)
	}
	docs := []catalog.BatchDocument{{ServicoID: ids[0], Seq: 1, Doc: catalog.Document{SchemaVersion: "v1", Pending: true}}}
	if err := healthy.store.IndexBatch(ctx, catalog.Progress{Lease: late, Cursor: ids[len(ids)-1]}, docs, lease); !errors.Is(err, catalog.ErrLeaseLost) {
		t.Errorf("batch under the late lease = %v, want ErrLeaseLost", err)
	}
	if _, err := healthy.store.SwitchVersion(ctx, late); !errors.Is(err, catalog.ErrLeaseLost) {
		t.Errorf("switch under the late lease = %v, want ErrLeaseLost", err)
	}

	final := healthy.waitForReindex(t, time.Minute)
	if m := final.Reindex; m.State != catalog.ReindexCompleted || m.Takeovers != 1 || m.Processed != servicos || m.Total != servicos || final.CurrentVersion != "v1" {
		t.Errorf("after the takeover: current %s, re-index %+v", final.CurrentVersion, m)
	}
	healthy.assertDocumentsMatch(t, "v1", catalog.SchemaV1)

	t.Logf("takeover %v after the runner stopped (lease %v, poll %v); %d writes to the stalled batch, slowest %v, %d failed",
		takeover.Round(time.Millisecond), lease, poll, writes.count, writes.slowest.Round(time.Millisecond), writes.failed)
	if limit := lease + poll + 2*time.Second; takeover > limit {
		t.Errorf("takeover after %v, want within lease + poll (+2s for this machine): %v", takeover, limit)
	}
	if writes.failed > 0 || writes.count == 0 || writes.slowest > lease {
		t.Errorf("writers blocked by the stalled runner: %d of %d failed (first: %s), slowest %v",
			writes.failed, writes.count, writes.firstFailure, writes.slowest)
	}
}

func TestAStalledReembedWorkerBlocksNoWriter(t *testing.T) {
	t.Parallel()
	dsn, idp := pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t)
	healthy := wireApp(t, dsn, idp, embedding.Hash{}, "healthy-replica")
	var ids []string
	for i := range 5 {
		sv := healthy.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", with(map[string]any{"nome_servico": fmt.Sprintf("Serviço %d", i)})).servico(t, http.StatusCreated)
		ids = append(ids, sv.ID)
	}
	// The provider failed for all of them: their documents wait for the worker.
	if err := healthy.db.Exec(`UPDATE search_documents SET embedding = NULL, embedding_pending = true, next_attempt_at = now() - interval '1 second'`).Error; err != nil {
		t.Fatal(err)
	}

	// The worker stops (SIGSTOP) right after sending its first completion.
	worker := startWorker(t, stallWorker{DSN: dsn, Mode: "reembed", Pattern: "UPDATE servicos SET change_seq = change_seq", After: 1})
	worker.waitStopped(t, time.Minute)
	stop := healthy.writeWhile(ids, 5*time.Second)
	time.Sleep(2 * time.Second)
	writes := stop()
	worker.resume(t)
	t.Logf("%d writes while the re-embed worker was stopped, slowest %v", writes.count, writes.slowest.Round(time.Millisecond))
	if writes.failed > 0 || writes.count < len(ids) || writes.slowest > 3*time.Second {
		t.Errorf("writers blocked by the stopped worker: %d of %d failed (first: %s), slowest %v",
			writes.failed, writes.count, writes.firstFailure, writes.slowest)
	}
}
