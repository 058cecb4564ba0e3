package http_test

import (
	"bytes"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/hostiletest"
)

// fuzzTargets are the writes FuzzBodies sends its bodies to; the fixture of
// resetFixture gives every {id} 1.
var fuzzTargets = []struct{ method, path string }{
	{http.MethodPost, "/api/v1/empregos"}, {http.MethodPut, "/api/v1/empregos/1"}, {http.MethodPatch, "/api/v1/empregos/1/status"},
	{http.MethodPost, "/api/v1/cursos"}, {http.MethodPut, "/api/v1/cursos/1"},
	{http.MethodPost, "/api/v1/escolaridades"}, {http.MethodPut, "/api/v1/escolaridades/1"},
	{http.MethodPost, "/api/v1/categorias"}, {http.MethodPut, "/api/v1/categorias/1"},
	{http.MethodPost, "/api/v1/empresas"}, {http.MethodPut, "/api/v1/orgaos/1"},
}

// FuzzBodies sends arbitrary bodies to every kind of write of the real
// handler on a real database: never a 5xx, a problem body for every error,
// and no stored row changed by a refused request.
func FuzzBodies(f *testing.F) {
	for _, c := range hostiletest.Bodies(f, "/api/v1/empregos", "/api/v1/escolaridades", "/api/v1/categorias") {
		if len(c.Body) > hostiletest.MaxSeedBytes {
			continue
		}
		for i, t := range fuzzTargets {
			if t.method == c.Method && strings.HasPrefix(t.path, strings.TrimSuffix(c.Path, "{id}")) {
				f.Add(uint8(i), c.Body)
				break
			}
		}
	}
	for i, body := range []string{
		`{"titulo":"Vaga","tipo_contratacao":"CLT","empresa_id":1,"salario_min":1000,"salario_max":2000,"data_inicio_prevista":"2025-03-01","status":"ABERTO"}`,
		`{"titulo":"Vaga","tipo_contratacao":"PJ","latitude":-22.9,"longitude":-43.2,"turno":"MANHA"}`,
		`{"status":"EM_ANALISE"}`,
		`{"title":"Curso","modalidade":"Remoto","categoria_ids":[1],"data_inicio":"2025-01-02","data_termino":"2025-02-01"}`,
		`{"title":"Curso","modalidade":"Presencial","link_inscricao":"https://x.rio"}`,
		`{"nivel":"Médio"}`, `{"nivel":"Me\u0301dio\u200b"}`, `{"nome":"Tecnologia"}`, `{"nome":"Tecnologia","cursos":[]}`,
		`{"nome":"Acme"}`, `{"nome":"SMF","empregos":[],"empregos_total":0}`,
	} {
		f.Add(uint8(i), []byte(body))
	}
	e := newEnvWith(f, map[string]string{"HTTP_MAX_BODY_BYTES": "1048576"})
	f.Fuzz(func(t *testing.T, target uint8, body []byte) {
		e.t = t
		e.resetFixture()
		w := fuzzTargets[int(target)%len(fuzzTargets)]
		before := e.rows()
		req := e.request(w.method, w.path, admin, nil)
		req.Body, req.ContentLength = nopCloser{bytes.NewReader(body)}, int64(len(body))
		req.Header.Set("Content-Type", "application/json")
		res := e.send(req)
		if res.Status >= 500 {
			t.Fatalf("%s %s: status %d; body %s", w.method, w.path, res.Status, res.Body)
		}
		if res.Status < 400 {
			return
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
			t.Fatalf("%s %s: status %d with Content-Type %q", w.method, w.path, res.Status, ct)
		}
		if !maps.Equal(before, e.rows()) {
			t.Fatalf("%s %s: a refused request (status %d) changed stored rows", w.method, w.path, res.Status)
		}
	})
}
