package http_test

import (
	"bytes"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/hostiletest"
)

// rowsSQL reads every row of every table, keyed by table and id.
var rowsSQL = func() string {
	var parts []string
	for _, table := range []string{"empresas", "escolaridades", "orgaos", "categorias", "empregos", "cursos"} {
		parts = append(parts, "SELECT '"+table+"/' || id AS key, to_jsonb(t)::text AS row FROM "+table+" t")
	}
	parts = append(parts, "SELECT 'curso_categorias/' || curso_id || '/' || categoria_id, '' FROM curso_categorias")
	return strings.Join(parts, " UNION ALL ")
}()

// rows returns every row of every table by table and key, as JSON text,
// to tell which rows a request changed.
func (e *env) rows() map[string]string {
	e.t.Helper()
	var rows []struct{ Key, Row string }
	if err := e.db.Raw(rowsSQL).Scan(&rows).Error; err != nil {
		e.t.Fatalf("read the rows: %v", err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.Key] = r.Row
	}
	return out
}

// resetFixture empties the database and stores one row of each resource,
// each with id 1, and a second escolaridade with id 2; new rows get ids
// from 10 on.
func (e *env) resetFixture() {
	e.t.Helper()
	const sql = `
DELETE FROM curso_categorias; DELETE FROM cursos; DELETE FROM empregos; DELETE FROM categorias;
DELETE FROM orgaos; DELETE FROM escolaridades; DELETE FROM empresas; DELETE FROM idempotency_keys;
INSERT INTO empresas (id, nome) VALUES (1, 'Empresa da base');
INSERT INTO escolaridades (id, nivel) VALUES (1, 'Nível da base'), (2, 'Outro nível da base');
INSERT INTO orgaos (id, nome) VALUES (1, 'Órgão da base');
INSERT INTO categorias (id, nome) VALUES (1, 'Categoria da base');
INSERT INTO empregos (id, titulo, tipo_contratacao, empresa_id, escolaridade_id, orgao_id) VALUES (1, 'Vaga da base', 'CLT', 1, 1, 1);
INSERT INTO cursos (id, title, modalidade, orgao_id) VALUES (1, 'Curso da base', 'Remoto', 1);
INSERT INTO curso_categorias (curso_id, categoria_id) VALUES (1, 1);
SELECT setval(pg_get_serial_sequence(t, 'id'), 10, false) FROM unnest(ARRAY['empresas', 'escolaridades', 'orgaos', 'categorias', 'empregos', 'cursos']) t`
	if err := e.db.Exec(sql).Error; err != nil {
		e.t.Fatalf("reset the fixture: %v", err)
	}
}

// TestHostileBodiesGetACleanAnswerAndRefusedOnesChangeNothing runs every
// jobs case of testdata/hostile/json-bodies.json with the production body
// limit: never a 5xx, a problem body for every error, the status the case
// allows, no stored row changed by a refused request, and no row but its
// target changed by an accepted one.
func TestHostileBodiesGetACleanAnswerAndRefusedOnesChangeNothing(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, map[string]string{"HTTP_MAX_BODY_BYTES": "1048576"})
	cases := hostiletest.Bodies(t, "/api/v1/empregos", "/api/v1/escolaridades", "/api/v1/categorias")
	if len(cases) < 100 {
		t.Fatalf("only %d cases loaded", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			e.resetFixture()
			for _, s := range c.Setup {
				expectStatus(t, e.do(s.Method, s.Path, admin, s.Body), http.StatusCreated)
			}
			path, target := c.Path, ""
			if c.ID != "" {
				id := c.ID
				if strings.HasPrefix(id, "<") { // a row of the fixture, never 2 nor one the setup made
					id = "1"
				}
				path = strings.Replace(path, "{id}", url.PathEscape(id), 1)
				if n, err := strconv.ParseInt(id, 10, 64); err == nil {
					target = "escolaridades/" + strconv.FormatInt(n, 10)
				}
			}
			before := e.rows()
			req := e.request(c.Method, path, admin, nil)
			req.Body, req.ContentLength = nopCloser{bytes.NewReader(c.Body)}, int64(len(c.Body))
			req.Header.Set("Content-Type", "application/json")
			res := e.send(req)
			after := e.rows()

			allowed := c.Allowed()
			if c.ID == "01" { // "either 404 or the same as 1"
				allowed = append(allowed, http.StatusOK)
			}
			switch {
			case res.Status >= 500:
				t.Fatalf("status %d; body %s", res.Status, res.Body)
			case len(allowed) > 0 && !slices.Contains(allowed, res.Status):
				t.Errorf("status %d, the case allows %v (%s); body %.300s", res.Status, allowed, c.Expect, res.Body)
			}
			if res.Status >= 400 {
				if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
					t.Errorf("Content-Type %q", ct)
				}
				if !maps.Equal(before, after) {
					t.Errorf("a refused request changed stored rows")
				}
				return
			}
			for key, row := range before {
				if key != target && after[key] != row {
					t.Errorf("%s changed from %s to %s", key, row, after[key])
				}
			}
		})
	}
}

// nopCloser is io.NopCloser for a reader whose length is known.
type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }
