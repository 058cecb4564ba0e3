package http_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/municipal-apis/platform/pkg/idempotency"
)

// doWithKey is do with an Idempotency-Key header.
func (e *env) doWithKey(method, path, client, key string, body any) response {
	e.t.Helper()
	req := e.request(method, path, client, body)
	req.Header.Set(idempotency.Header, key)
	return e.send(req)
}

// replayed reports whether res is a stored answer.
func (r response) replayed() bool { return r.Header.Get(idempotency.ReplayedHeader) == "true" }

func TestARetriedCreateReplaysTheOriginalAnswerForEveryCollection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name, collection string
		body             map[string]any
	}{
		{"a categoria is created once", "categorias", map[string]any{"nome": "Tecnologia"}},
		{"an escolaridade is created once", "escolaridades", map[string]any{"nivel": "Superior"}},
		{"an empresa is created once", "empresas", map[string]any{"nome": "Padaria"}},
		{"an orgao is created once", "orgaos", map[string]any{"nome": "Secretaria"}},
		{"an emprego is created once", "empregos", map[string]any{"titulo": "Padeiro", "tipo_contratacao": "CLT"}},
		{"a curso is created once", "cursos", map[string]any{"title": "Panificação", "modalidade": "Remoto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := "/api/v1/" + tt.collection
			first := e.doWithKey(http.MethodPost, path, admin, "create-"+tt.collection, tt.body)
			expectStatus(t, first, http.StatusCreated)
			again := e.doWithKey(http.MethodPost, path, admin, "create-"+tt.collection, tt.body)
			expectStatus(t, again, http.StatusCreated)
			if string(again.Body) != string(first.Body) || again.Header.Get("Location") != first.Header.Get("Location") || !again.replayed() {
				t.Errorf("replay differs: %s %q replayed=%v, want %s %q", again.Body, again.Header.Get("Location"), again.replayed(),
					first.Body, first.Header.Get("Location"))
			}
			if n := e.count(tt.collection); n != 1 {
				t.Errorf("%d %s stored, want 1", n, tt.collection)
			}
		})
	}
}

func TestTheSameKeyWithAnotherBodyCreatesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	expectStatus(t, e.doWithKey(http.MethodPost, "/api/v1/categorias", admin, "k", map[string]any{"nome": "Um"}), http.StatusCreated)
	before := e.snapshot()
	res := e.doWithKey(http.MethodPost, "/api/v1/categorias", admin, "k", map[string]any{"nome": "Dois"})
	expectFields(t, res, idempotency.Header)
	if after := e.snapshot(); after["categorias"] != before["categorias"] {
		t.Errorf("categorias changed: %s → %s", before["categorias"], after["categorias"])
	}
}

func TestClientsMayUseTheSameKeyIndependently(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.doWithKey(http.MethodPost, "/api/v1/categorias", admin, "shared", map[string]any{"nome": "Um"})
	b := e.doWithKey(http.MethodPost, "/api/v1/categorias", otherDept, "shared", map[string]any{"nome": "Dois"})
	expectStatus(t, a, http.StatusCreated)
	expectStatus(t, b, http.StatusCreated)
	if b.replayed() || id(a.object(t)) == id(b.object(t)) {
		t.Errorf("the second client got the first one's answer: %s", b.Body)
	}
	if n := e.count("categorias"); n != 2 {
		t.Errorf("%d categorias stored, want 2", n)
	}
}

func TestConcurrentCreatesWithOneKeyCreateOneRow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.token(admin)
	const n = 20
	results := make([]response, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			results[i] = e.doWithKey(http.MethodPost, "/api/v1/empresas", admin, "one", map[string]any{"nome": "Padaria"})
		})
	}
	close(start)
	wg.Wait()
	ran := 0
	for _, res := range results {
		switch {
		case res.Status == http.StatusCreated && !res.replayed():
			ran++
		case res.Status == http.StatusCreated || res.Status == http.StatusConflict:
		default:
			t.Errorf("status %d: %s", res.Status, res.Body)
		}
	}
	if ran != 1 || e.count("empresas") != 1 {
		t.Errorf("%d requests ran and %d empresas were stored, want 1 and 1", ran, e.count("empresas"))
	}
}

func TestA422IsReplayedButA500RunsAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	invalid := map[string]any{"titulo": "", "tipo_contratacao": "CLT"}
	first := e.doWithKey(http.MethodPost, "/api/v1/empregos", admin, "bad", invalid)
	expectFields(t, first, "titulo")
	again := e.doWithKey(http.MethodPost, "/api/v1/empregos", admin, "bad", invalid)
	expectFields(t, again, "titulo")
	if !again.replayed() || string(again.Body) != string(first.Body) {
		t.Errorf("the 422 was not replayed: %s", again.Body)
	}

	broken := func(sql string) {
		if err := e.db.Exec(sql).Error; err != nil {
			t.Fatal(err)
		}
	}
	broken(`ALTER TABLE categorias RENAME TO categorias_away`)
	failed := e.doWithKey(http.MethodPost, "/api/v1/categorias", admin, "flaky", map[string]any{"nome": "Um"})
	expectStatus(t, failed, http.StatusInternalServerError)
	broken(`ALTER TABLE categorias_away RENAME TO categorias`)
	retried := e.doWithKey(http.MethodPost, "/api/v1/categorias", admin, "flaky", map[string]any{"nome": "Um"})
	expectStatus(t, retried, http.StatusCreated)
	if retried.replayed() || e.count("categorias") != 1 {
		t.Errorf("replayed=%v, %d categorias; want the retry to run", retried.replayed(), e.count("categorias"))
	}
}

func TestARetriedStatusChangeIsReplayed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	emprego := e.mustCreate("/api/v1/empregos", map[string]any{"titulo": "Vaga", "tipo_contratacao": "PJ"})
	path := at("empregos", id(emprego)) + "/status"
	first := e.doWithKey(http.MethodPatch, path, admin, "open", map[string]any{"status": "ABERTO"})
	expectStatus(t, first, http.StatusOK)
	expectStatus(t, e.do(http.MethodPatch, path, admin, map[string]any{"status": "EM_ANALISE"}), http.StatusOK)
	again := e.doWithKey(http.MethodPatch, path, admin, "open", map[string]any{"status": "ABERTO"})
	expectStatus(t, again, http.StatusOK)
	if !again.replayed() || string(again.Body) != string(first.Body) {
		t.Errorf("the retry was not replayed: %s", again.Body)
	}
	var status string
	if err := e.db.Raw(`SELECT status FROM empregos WHERE id = ?`, id(emprego)).Scan(&status).Error; err != nil {
		t.Fatal(err)
	}
	if status != "EM_ANALISE" {
		t.Errorf("status = %s; the replayed retry must not change it back", status)
	}
}

func TestAnInvalidKeyIsABadRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.doWithKey(http.MethodPost, "/api/v1/categorias", admin, "chave-não-ascii", map[string]any{"nome": "Um"})
	expectStatus(t, res, http.StatusBadRequest)
	if n := e.count("categorias"); n != 0 {
		t.Errorf("%d categorias stored", n)
	}
}
