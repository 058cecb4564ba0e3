package http_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	jobshttp "github.com/municipal-apis/platform/services/jobs/internal/http"
)

// TestEveryOperationMatchesTheOpenAPIDocument performs every operation of
// the served document with a successful outcome; env.do checks each
// response against the document, and this test checks none was left out.
func TestEveryOperationMatchesTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	served := e.do(http.MethodGet, "/openapi.json", "", nil)
	expectStatus(t, served, http.StatusOK)
	if string(served.Body) != string(jobshttp.OpenAPI) {
		t.Fatal("/openapi.json does not serve the embedded document")
	}
	covered := map[string]bool{"getOpenAPI": true}
	run := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		res := e.do(method, path, admin, body)
		expectStatus(t, res, want)
		r, err := router()
		if err != nil {
			t.Fatal(err)
		}
		route, _, err := r.FindRoute(httptest.NewRequest(method, path, nil))
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		covered[route.Operation.OperationID] = true
		if want == http.StatusNoContent {
			return nil
		}
		return res.object(t)
	}

	ids := map[string]int64{}
	for _, r := range []struct{ path, field string }{{"empresas", "nome"}, {"escolaridades", "nivel"}, {"orgaos", "nome"}, {"categorias", "nome"}} {
		ids[r.path] = id(run(http.MethodPost, "/api/v1/"+r.path, map[string]any{r.field: "Um"}, http.StatusCreated))
	}
	emprego := run(http.MethodPost, "/api/v1/empregos", map[string]any{"titulo": "Vaga", "tipo_contratacao": "MEI",
		"empresa_id": ids["empresas"], "escolaridade_id": ids["escolaridades"], "orgao_id": ids["orgaos"], "latitude": 1.5}, http.StatusCreated)
	ids["empregos"] = id(emprego)
	ids["cursos"] = id(run(http.MethodPost, "/api/v1/cursos", map[string]any{"title": "Curso", "modalidade": "Remoto",
		"orgao_id": ids["orgaos"], "categoria_ids": []int64{ids["categorias"]}, "data_inicio": "2025-01-02"}, http.StatusCreated))

	bodies := map[string]map[string]any{
		"empresas": {"nome": "Dois"}, "escolaridades": {"nivel": "Dois"}, "orgaos": {"nome": "Dois"}, "categorias": {"nome": "Dois"},
		"empregos": {"titulo": "Vaga 2", "tipo_contratacao": "PJ", "empresa_id": ids["empresas"], "status": "ABERTO"},
		"cursos":   {"title": "Curso 2", "modalidade": "Presencial", "categoria_ids": []int64{ids["categorias"]}},
	}
	for path, body := range bodies {
		run(http.MethodGet, "/api/v1/"+path+"?per_page=5", nil, http.StatusOK)
		run(http.MethodGet, at(path, ids[path]), nil, http.StatusOK)
		run(http.MethodPut, at(path, ids[path]), body, http.StatusOK)
	}
	run(http.MethodPatch, at("empregos", ids["empregos"])+"/status", map[string]any{"status": "EM_ANALISE"}, http.StatusOK)
	for _, path := range []string{"empregos", "cursos", "empresas", "escolaridades", "orgaos", "categorias"} {
		run(http.MethodDelete, at(path, ids[path]), nil, http.StatusNoContent)
	}

	doc, err := openapi3.NewLoader().LoadFromData(jobshttp.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if !covered[op.OperationID] {
				missing = append(missing, fmt.Sprintf("%s %s (%s)", method, path, op.OperationID))
			}
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("operations never exercised: %v", missing)
	}
}
