package http_test

import (
	"maps"
	"net/http"
	"strings"
	"testing"
)

// Nested relation objects in a request never create or change rows, and a
// failed request leaves the database exactly as it was.

func TestNestedObjectsChangeNoOtherRow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	empresa := e.mustCreate("/api/v1/empresas", map[string]any{"nome": "Original"})
	esc := e.mustCreate("/api/v1/escolaridades", map[string]any{"nivel": "Médio"})
	cat := e.mustCreate("/api/v1/categorias", map[string]any{"nome": "Saúde"})
	emprego := e.mustCreate("/api/v1/empregos", map[string]any{"titulo": "Original", "tipo_contratacao": "CLT", "empresa_id": id(empresa)})

	tests := []struct {
		name, method, path string
		body               map[string]any
		changes            string // the only table the request may change
	}{
		{"an emprego with a changed nested empresa leaves the empresa alone", http.MethodPost, "/api/v1/empregos",
			map[string]any{"titulo": "Novo", "tipo_contratacao": "PJ", "empresa_id": id(empresa), "empresa": map[string]any{"id": id(empresa), "nome": "changed"}}, "empregos"},
		{"an emprego with a nested empresa that does not exist creates no empresa", http.MethodPost, "/api/v1/empregos",
			map[string]any{"titulo": "Novo", "tipo_contratacao": "PJ", "empresa": map[string]any{"id": 777, "nome": "new"}, "orgao": map[string]any{"nome": "new"}}, "empregos"},
		{"a replace of an emprego with a nested escolaridade leaves it alone", http.MethodPut, at("empregos", id(emprego)),
			map[string]any{"titulo": "Outro", "tipo_contratacao": "CLT", "escolaridade": map[string]any{"id": id(esc), "nivel": "changed"}}, "empregos"},
		{"an escolaridade with an empregos array changes no emprego", http.MethodPut, at("escolaridades", id(esc)),
			map[string]any{"nivel": "Médio completo", "empregos": []any{map[string]any{"id": id(emprego), "titulo": "changed", "escolaridade_id": id(esc)}}}, "escolaridades"},
		{"an empresa with an empregos array creates no emprego", http.MethodPost, "/api/v1/empresas",
			map[string]any{"nome": "Outra", "empregos": []any{map[string]any{"titulo": "injected", "tipo_contratacao": "CLT"}}}, "empresas"},
		{"a categoria with a cursos array creates no curso", http.MethodPost, "/api/v1/categorias",
			map[string]any{"nome": "Educação", "cursos": []any{map[string]any{"title": "injected", "modalidade": "Remoto"}}}, "categorias"},
		{"a curso with nested categorias links and changes none of them", http.MethodPost, "/api/v1/cursos",
			map[string]any{"title": "Excel", "modalidade": "Remoto", "categorias": []any{map[string]any{"id": id(cat), "nome": "changed"}}}, "cursos"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := e.snapshot()
			res := e.do(tc.method, tc.path, admin, tc.body)
			if res.Status != http.StatusCreated && res.Status != http.StatusOK {
				t.Fatalf("status = %d %s", res.Status, res.Body)
			}
			after := e.snapshot()
			for table := range before {
				if table != tc.changes && before[table] != after[table] {
					t.Errorf("table %s changed:\nbefore %s\nafter  %s", table, before[table], after[table])
				}
			}
		})
	}
	if got := e.do(http.MethodGet, at("empresas", id(empresa)), admin, nil).object(t)["nome"]; got != "Original" {
		t.Errorf("empresa nome = %v", got)
	}
}

func TestFailedRequestsLeaveTheDatabaseAsBefore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	empresa := e.mustCreate("/api/v1/empresas", map[string]any{"nome": "Acme"})
	cat := e.mustCreate("/api/v1/categorias", map[string]any{"nome": "TI"})
	emprego := e.mustCreate("/api/v1/empregos", map[string]any{"titulo": "Dev", "tipo_contratacao": "CLT", "empresa_id": id(empresa), "salario_min": 100})
	closed := e.mustCreate("/api/v1/empregos", map[string]any{"titulo": "Old", "tipo_contratacao": "CLT", "status": "ABERTO"})
	expectStatus(t, e.do(http.MethodPatch, at("empregos", id(closed))+"/status", admin, map[string]any{"status": "ENCERRADO"}), http.StatusOK)
	curso := e.mustCreate("/api/v1/cursos", map[string]any{"title": "Go", "modalidade": "Remoto", "categoria_ids": []int64{id(cat)}})

	tests := []struct {
		name, method, path string
		body               any
		status             int
	}{
		{"a replace with an unknown empresa_id", http.MethodPut, at("empregos", id(emprego)), map[string]any{"titulo": "X", "tipo_contratacao": "CLT", "empresa_id": 424242}, 422},
		{"a replace that breaks a rule", http.MethodPut, at("empregos", id(emprego)), map[string]any{"titulo": "X", "tipo_contratacao": "CLT", "latitude": 91}, 422},
		{"a replace that reopens a closed emprego", http.MethodPut, at("empregos", id(closed)), map[string]any{"titulo": "X", "tipo_contratacao": "CLT", "status": "ABERTO"}, 409},
		{"a curso whose second categoria does not exist", http.MethodPost, "/api/v1/cursos", map[string]any{"title": "Py", "modalidade": "Remoto", "categoria_ids": []int64{id(cat), 999}}, 422},
		{"a replace of a curso with an unknown categoria", http.MethodPut, at("cursos", id(curso)), map[string]any{"title": "Go 2", "modalidade": "Presencial", "categoria_ids": []int64{999}}, 422},
		{"a duplicate categoria", http.MethodPost, "/api/v1/categorias", map[string]any{"nome": "ti"}, 409},
		{"a delete of a referenced empresa", http.MethodDelete, at("empresas", id(empresa)), nil, 409},
		{"a delete of a categoria with cursos", http.MethodDelete, at("categorias", id(cat)), nil, 409},
		{"an oversized body", http.MethodPost, "/api/v1/empresas", `{"nome":"` + strings.Repeat("a", maxBody) + `"}`, 413},
		{"a body that is not JSON", http.MethodPost, "/api/v1/empresas", `{"nome":`, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name+" changes nothing", func(t *testing.T) {
			before := e.snapshot()
			expectStatus(t, e.do(tc.method, tc.path, admin, tc.body), tc.status)
			if after := e.snapshot(); !maps.Equal(before, after) {
				t.Errorf("the database changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}
