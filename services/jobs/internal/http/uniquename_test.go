package http_test

import (
	"maps"
	"net/http"
	"net/url"
	"testing"
)

func TestUniqueNamesAreComparedAndStoredNormalized(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, r := range []struct{ path, field string }{{"escolaridades", "nivel"}, {"categorias", "nome"}} {
		t.Run(r.path, func(t *testing.T) {
			e.mustCreate("/api/v1/"+r.path, map[string]any{r.field: "Médio"})
			for _, same := range []string{"Me\u0301dio", "Médio\u200b", "\ufeffMÉDIO", "Mé\u200ddio", " Me\u0301\u2060dio\u200c "} {
				expectStatus(t, e.do(http.MethodPost, "/api/v1/"+r.path, admin, map[string]any{r.field: same}), http.StatusConflict)
			}
			created := e.mustCreate("/api/v1/"+r.path, map[string]any{r.field: "Te\u0301cnico\u200b"})
			if created[r.field] != "Técnico" {
				t.Errorf("%s stored as %q, want the NFC form without zero-width characters", r.field, created[r.field])
			}
			list := e.do(http.MethodGet, "/api/v1/"+r.path+"?"+url.Values{r.field: {"te\u0301cnico"}}.Encode(), readOnly, nil).object(t)
			if data := list["data"].([]any); len(data) != 1 || data[0].(map[string]any)[r.field] != "Técnico" {
				t.Errorf("filter by a denormalized spelling found %v", data)
			}
			expectStatus(t, e.do(http.MethodPut, at(r.path, id(created)), admin, map[string]any{r.field: "MEDIO\u200b"}), http.StatusOK)
			expectStatus(t, e.do(http.MethodPut, at(r.path, id(created)), admin, map[string]any{r.field: "me\u0301dio"}), http.StatusConflict)
			expectFields(t, e.do(http.MethodPost, "/api/v1/"+r.path, admin, map[string]any{r.field: "\u200b\u200d"}), r.field)
		})
	}
	t.Run("names that need not be unique are stored as sent", func(t *testing.T) {
		got := e.mustCreate("/api/v1/orgaos", map[string]any{"nome": "Me\u0301dio\u200b"})
		if got["nome"] != "Me\u0301dio\u200b" {
			t.Errorf("nome = %q", got["nome"])
		}
	})
}

func TestRepeatedMembersAreRefusedAndChangeNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	nivel := e.mustCreate("/api/v1/escolaridades", map[string]any{"nivel": "Superior"})
	emprego := e.mustCreate("/api/v1/empregos", map[string]any{"titulo": "Vaga", "tipo_contratacao": "CLT"})
	before := e.snapshot()
	tests := []struct {
		name, method, path, body, field string
	}{
		{"a create with nivel twice", http.MethodPost, "/api/v1/escolaridades", `{"nivel":"a","nivel":"b"}`, "nivel"},
		{"a replace with nivel twice", http.MethodPut, at("escolaridades", id(nivel)), `{"nivel":"a","nivel":"b"}`, "nivel"},
		{"a create with a repeated read-only member", http.MethodPost, "/api/v1/categorias", `{"id":1,"nome":"a","id":2}`, "id"},
		{"a posting with titulo twice", http.MethodPost, "/api/v1/empregos", `{"titulo":"a","tipo_contratacao":"CLT","titulo":"b"}`, "titulo"},
		{"a replace of a posting with status twice", http.MethodPut, at("empregos", id(emprego)), `{"titulo":"a","tipo_contratacao":"CLT","status":"ABERTO","status":"ENCERRADO"}`, "status"},
		{"a status change with status twice", http.MethodPatch, at("empregos", id(emprego)) + "/status", `{"status":"ABERTO","status":"ENCERRADO"}`, "status"},
		{"a course with categoria_ids twice", http.MethodPost, "/api/v1/cursos", `{"title":"a","modalidade":"Remoto","categoria_ids":[],"categoria_ids":[1]}`, "categoria_ids"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a 422 naming the member", func(t *testing.T) {
			expectFields(t, e.do(tt.method, tt.path, admin, tt.body), tt.field)
		})
	}
	if after := e.snapshot(); !maps.Equal(before, after) {
		t.Errorf("refused requests changed stored rows:\n%v\n%v", before, after)
	}
}
