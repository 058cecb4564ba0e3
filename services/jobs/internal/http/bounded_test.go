package http_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// countingWriter is a ResponseWriter that counts the body bytes and keeps
// none, so measuring an answer does not allocate its size again.
type countingWriter struct {
	header http.Header
	status int
	bytes  int
}

func (w *countingWriter) Header() http.Header         { return w.header }
func (w *countingWriter) WriteHeader(status int)      { w.status = status }
func (w *countingWriter) Write(p []byte) (int, error) { w.bytes += len(p); return len(p), nil }

// measured is the cost of one answer: its size and the bytes the process
// allocated while serving it.
type measured struct {
	status    int
	bytes     int
	allocated uint64
}

// measure serves a request three times and reports the size of the answer
// and the fewest bytes allocated while serving it (the test runs alone, so
// they are the handler's, give or take a background sweep).
func (e *env) measure(method, path, body string) measured {
	e.t.Helper()
	var m measured
	for range 3 {
		var req *http.Request
		if body == "" {
			req = e.request(method, path, admin, nil)
		} else {
			req = e.request(method, path, admin, body)
		}
		w := &countingWriter{header: http.Header{}, status: http.StatusOK}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		e.h.ServeHTTP(w, req)
		runtime.ReadMemStats(&after)
		if a := after.TotalAlloc - before.TotalAlloc; m.allocated == 0 || a < m.allocated {
			m.allocated = a
		}
		m.status, m.bytes = w.status, w.bytes
	}
	return m
}

// reverseFixture stores one empresa, escolaridade, orgao and categoria with
// n empregos pointing at the first three and n cursos at the last two, and
// returns their ids by collection.
func (e *env) reverseFixture(n int) map[string]int64 {
	e.t.Helper()
	ids := map[string]int64{}
	for _, r := range []struct{ path, field string }{{"empresas", "nome"}, {"escolaridades", "nivel"}, {"orgaos", "nome"}, {"categorias", "nome"}} {
		ids[r.path] = id(e.mustCreate("/api/v1/"+r.path, map[string]any{r.field: fmt.Sprintf("Com %d (%s)", n, r.path)}))
	}
	err := e.db.Exec(`INSERT INTO empregos (titulo, descricao, tipo_contratacao, empresa_id, escolaridade_id, orgao_id)
		SELECT 'Vaga ' || g, repeat('Descrição da vaga. ', 40), 'CLT', ?, ?, ? FROM generate_series(1, ?) g`,
		ids["empresas"], ids["escolaridades"], ids["orgaos"], n).Error
	if err == nil {
		err = e.db.Exec(`WITH c AS (INSERT INTO cursos (title, description, modalidade, orgao_id)
			SELECT 'Curso ' || g, repeat('Conteúdo do curso. ', 40), 'Remoto', ? FROM generate_series(1, ?) g RETURNING id)
			INSERT INTO curso_categorias (curso_id, categoria_id) SELECT id, ? FROM c`, ids["orgaos"], n, ids["categorias"]).Error
	}
	if err != nil {
		e.t.Fatalf("store %d empregos and cursos: %v", n, err)
	}
	return ids
}

// reverseArrays are the embedded reverse arrays of the single-resource
// answers and the list filter that pages through each.
var reverseArrays = []struct{ collection, member, list, filter, field string }{
	{"empresas", "empregos", "empregos", "empresa_id", "nome"},
	{"escolaridades", "empregos", "empregos", "escolaridade_id", "nivel"},
	{"orgaos", "empregos", "empregos", "orgao_id", "nome"},
	{"orgaos", "cursos", "cursos", "orgao_id", "nome"},
	{"categorias", "cursos", "cursos", "categoria_id", "nome"},
}

// TestSingleResourcesEmbedABoundedReverseArray is not parallel: it measures
// the bytes allocated while serving, which other tests would disturb.
func TestSingleResourcesEmbedABoundedReverseArray(t *testing.T) {
	e := newEnv(t)
	const few, many = 200, 20000
	small, large := e.reverseFixture(few), e.reverseFixture(many)

	for _, r := range reverseArrays {
		t.Run(r.collection+" embed the first "+fmt.Sprint(jobs.MaxEmbedded)+" "+r.member+", their total and where to list them", func(t *testing.T) {
			path := at(r.collection, large[r.collection])
			got := e.do(http.MethodGet, path, admin, nil)
			expectStatus(t, got, http.StatusOK)
			body := got.object(t)
			items, _ := body[r.member].([]any)
			if len(items) != jobs.MaxEmbedded {
				t.Fatalf("%d %s embedded, want %d", len(items), r.member, jobs.MaxEmbedded)
			}
			first := int64(items[0].(map[string]any)["id"].(float64))
			for i, it := range items {
				if got := int64(it.(map[string]any)["id"].(float64)); got != first+int64(i) {
					t.Fatalf("item %d has id %d: not the first ids in order", i, got)
				}
			}
			if total := body[r.member+"_total"]; total != float64(many) {
				t.Errorf("%s_total = %v, want %d", r.member, total, many)
			}
			want := fmt.Sprintf(`</api/v1/%s?%s=%d>; rel="related"; title="%s"`, r.list, r.filter, large[r.collection], r.member)
			if links := got.Header.Values("Link"); !contains(links, want) {
				t.Errorf("Link headers %q, want %s", links, want)
			}
			list := e.do(http.MethodGet, fmt.Sprintf("/api/v1/%s?%s=%d&per_page=1", r.list, r.filter, large[r.collection]), admin, nil).object(t)
			if list["meta"].(map[string]any)["total"] != float64(many) {
				t.Errorf("the list behind the link holds %v", list["meta"])
			}
			// a client may send back what it read (a few items, to stay under
			// the body limit of the test handler)
			echo := map[string]any{r.field: body[r.field], r.member: items[:3], r.member + "_total": body[r.member+"_total"]}
			echoed := e.do(http.MethodPut, path, admin, echo)
			expectStatus(t, echoed, http.StatusOK)
			if items, _ := echoed.object(t)[r.member].([]any); len(items) != jobs.MaxEmbedded {
				t.Errorf("the PUT echo embeds %d %s", len(items), r.member)
			}
		})
	}

	for _, r := range []struct{ collection, field string }{{"empresas", "nome"}, {"escolaridades", "nivel"}, {"orgaos", "nome"}, {"categorias", "nome"}} {
		for _, method := range []string{http.MethodGet, http.MethodPut} {
			t.Run(method+" "+r.collection+" costs the same with "+fmt.Sprint(many)+" as with "+fmt.Sprint(few)+" rows", func(t *testing.T) {
				body := ""
				if method == http.MethodPut {
					body = fmt.Sprintf(`{%q:"Renomeado %s %d"}`, r.field, method, few)
				}
				s := e.measure(method, at(r.collection, small[r.collection]), body)
				body = strings.Replace(body, fmt.Sprint(few), fmt.Sprint(many), 1)
				l := e.measure(method, at(r.collection, large[r.collection]), body)
				t.Logf("%s %s: %d rows %d bytes, %d allocated; %d rows %d bytes, %d allocated",
					method, r.collection, few, s.bytes, s.allocated, many, l.bytes, l.allocated)
				if s.status != http.StatusOK || l.status != http.StatusOK {
					t.Fatalf("statuses %d and %d", s.status, l.status)
				}
				if l.bytes > s.bytes+s.bytes/10 || l.allocated > s.allocated+4<<20 {
					t.Errorf("%d rows: %d bytes, %d allocated; %d rows: %d bytes, %d allocated", few, s.bytes, s.allocated, many, l.bytes, l.allocated)
				}
			})
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
