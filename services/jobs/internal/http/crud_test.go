package http_test

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
)

func TestNamedResourcesLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	resources := []struct{ path, field string }{
		{"empresas", "nome"}, {"escolaridades", "nivel"}, {"orgaos", "nome"}, {"categorias", "nome"},
	}
	for _, r := range resources {
		t.Run(r.path+" can be created, read, listed, filtered, replaced and deleted", func(t *testing.T) {
			a := e.mustCreate("/api/v1/"+r.path, map[string]any{r.field: "Alfa " + r.path})
			e.mustCreate("/api/v1/"+r.path, map[string]any{r.field: "Beta " + r.path})

			got := e.do(http.MethodGet, at(r.path, id(a)), readOnly, nil)
			expectStatus(t, got, http.StatusOK)
			if got.object(t)[r.field] != "Alfa "+r.path {
				t.Errorf("read %s", got.Body)
			}
			list := e.do(http.MethodGet, fmt.Sprintf("/api/v1/%s?%s=ALFA+%s", r.path, r.field, r.path), readOnly, nil)
			expectStatus(t, list, http.StatusOK)
			var page struct {
				Data []map[string]any
				Meta struct{ Page, PerPage, Total int } `json:"meta"`
			}
			list.decode(t, &page)
			if len(page.Data) != 1 || id(page.Data[0]) != id(a) || page.Data[0][r.field] != "Alfa "+r.path || page.Meta.Total != 1 {
				t.Errorf("filtered list = %s", list.Body)
			}
			for _, reverse := range []string{"empregos", "cursos"} {
				if _, ok := page.Data[0][reverse]; ok {
					t.Errorf("a list item embeds its %s array: %s", reverse, list.Body)
				}
			}
			expectStatus(t, e.do(http.MethodPut, at(r.path, id(a)), admin, map[string]any{r.field: "Gama"}), http.StatusOK)
			expectStatus(t, e.do(http.MethodDelete, at(r.path, id(a)), admin, nil), http.StatusNoContent)
			expectStatus(t, e.do(http.MethodGet, at(r.path, id(a)), readOnly, nil), http.StatusNotFound)
			expectStatus(t, e.do(http.MethodDelete, at(r.path, id(a)), admin, nil), http.StatusNotFound)
			expectStatus(t, e.do(http.MethodPut, at(r.path, id(a)), admin, map[string]any{r.field: "Delta"}), http.StatusNotFound)
		})
	}
}

func TestDeletingAReferencedRowIsAConflictNamingTheReferrer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	empresa := e.mustCreate("/api/v1/empresas", map[string]any{"nome": "Acme"})
	esc := e.mustCreate("/api/v1/escolaridades", map[string]any{"nivel": "Médio"})
	orgao := e.mustCreate("/api/v1/orgaos", map[string]any{"nome": "SME"})
	cat := e.mustCreate("/api/v1/categorias", map[string]any{"nome": "Artes"})
	emprego := e.mustCreate("/api/v1/empregos", map[string]any{"titulo": "Dev", "tipo_contratacao": "CLT",
		"empresa_id": id(empresa), "escolaridade_id": id(esc), "orgao_id": id(orgao)})
	curso := e.mustCreate("/api/v1/cursos", map[string]any{"title": "Pintura", "modalidade": "Presencial", "orgao_id": id(orgao), "categoria_ids": []int64{id(cat)}})

	tests := []struct {
		name      string
		path      string
		referrers []string
	}{
		{"an empresa with empregos", at("empresas", id(empresa)), []string{"empregos"}},
		{"an escolaridade with empregos", at("escolaridades", id(esc)), []string{"empregos"}},
		{"an orgao with empregos and cursos", at("orgaos", id(orgao)), []string{"empregos", "cursos"}},
		{"a categoria with cursos", at("categorias", id(cat)), []string{"cursos"}},
	}
	for _, tc := range tests {
		t.Run(tc.name+" is not deleted", func(t *testing.T) {
			res := e.do(http.MethodDelete, tc.path, admin, nil)
			expectStatus(t, res, http.StatusConflict)
			got := res.fields(t)
			if fmt.Sprint(got) != fmt.Sprint(tc.referrers) {
				t.Errorf("409 names %v, want %v", got, tc.referrers)
			}
			expectStatus(t, e.do(http.MethodGet, tc.path, readOnly, nil), http.StatusOK)
		})
	}
	t.Run("once the referrers are gone the rows can be deleted", func(t *testing.T) {
		expectStatus(t, e.do(http.MethodDelete, at("empregos", id(emprego)), admin, nil), http.StatusNoContent)
		expectStatus(t, e.do(http.MethodDelete, at("cursos", id(curso)), admin, nil), http.StatusNoContent)
		for _, tc := range tests {
			expectStatus(t, e.do(http.MethodDelete, tc.path, admin, nil), http.StatusNoContent)
		}
	})
}

func TestReplaceEmpregoNullsAbsentMembers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	empresa := e.mustCreate("/api/v1/empresas", map[string]any{"nome": "Acme"})
	created := e.mustCreate("/api/v1/empregos", map[string]any{"titulo": "Dev", "tipo_contratacao": "CLT", "descricao": "x",
		"salario_min": 0, "numero_vagas": 3, "latitude": 0, "empresa_id": id(empresa), "turno": "NOITE", "data_inicio_prevista": "2025-01-01"})
	if created["salario_min"] != 0.0 || created["latitude"] != 0.0 {
		t.Fatalf("zero values were not stored as zero: %v", created)
	}
	res := e.do(http.MethodPut, at("empregos", id(created)), admin, map[string]any{"titulo": "Dev II", "tipo_contratacao": "PJ"})
	expectStatus(t, res, http.StatusOK)
	got := res.object(t)
	for _, member := range []string{"descricao", "salario_min", "numero_vagas", "latitude", "empresa_id", "turno", "data_inicio_prevista"} {
		if v, ok := got[member]; !ok || v != nil {
			t.Errorf("%s = %#v, want null", member, v)
		}
	}
	if _, ok := got["empresa"]; ok {
		t.Errorf("empresa is still embedded: %s", res.Body)
	}
	if got["created_at"] != created["created_at"] || got["updated_at"] == created["updated_at"] || got["status"] != "CRIADO" {
		t.Errorf("created_at/updated_at/status after replace: %s (created %v)", res.Body, created)
	}
}

func TestListEmpregos(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.mustCreate("/api/v1/empresas", map[string]any{"nome": "A"})
	b := e.mustCreate("/api/v1/empresas", map[string]any{"nome": "B"})
	for i := range 25 {
		body := map[string]any{"titulo": fmt.Sprintf("Vaga %d", i), "tipo_contratacao": "CLT", "empresa_id": id(a), "turno": "MANHA"}
		if i%5 == 0 {
			body["empresa_id"], body["tipo_contratacao"], body["status"] = id(b), "PJ", "ABERTO"
		}
		e.mustCreate("/api/v1/empregos", body)
	}
	type page struct {
		Data []map[string]any `json:"data"`
		Meta struct {
			Page    int `json:"page"`
			PerPage int `json:"per_page"`
			Total   int `json:"total"`
		} `json:"meta"`
	}
	tests := []struct {
		name                  string
		query                 string
		items, total, perPage int
	}{
		{"the first page holds 20 by default", "", 20, 25, 20},
		{"the second page holds the rest", "?page=2", 5, 25, 20},
		{"a page past the end is empty", "?page=9", 0, 25, 20},
		{"per_page above 100 is clamped", "?per_page=500", 25, 25, 100},
		{"per_page beyond 32 bits is clamped too", "?per_page=2147483648", 25, 25, 100},
		{"per_page beyond 64 bits is clamped too", "?per_page=99999999999999999999", 25, 25, 100},
		{"filters combine", fmt.Sprintf("?empresa_id=%d&tipo_contratacao=PJ&status=ABERTO", id(b)), 5, 5, 20},
		{"an enum filter selects", "?status=CRIADO&turno=MANHA&per_page=3", 3, 20, 3},
		{"a filter that matches nothing gives an empty page", "?orgao_id=1", 0, 0, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := e.do(http.MethodGet, "/api/v1/empregos"+tc.query, readOnly, nil)
			expectStatus(t, res, http.StatusOK)
			var p page
			res.decode(t, &p)
			if len(p.Data) != tc.items || p.Meta.Total != tc.total || p.Meta.PerPage != tc.perPage {
				t.Errorf("items %d total %d per_page %d, want %d %d %d", len(p.Data), p.Meta.Total, p.Meta.PerPage, tc.items, tc.total, tc.perPage)
			}
			for i := 1; i < len(p.Data); i++ {
				if id(p.Data[i]) <= id(p.Data[i-1]) {
					t.Errorf("items are not in id order")
				}
			}
			if len(p.Data) > 0 && p.Data[0]["empresa"] == nil {
				t.Errorf("list items do not embed their empresa: %v", p.Data[0])
			}
		})
	}
	bad := []struct{ name, query, field string }{
		{"page zero is a 422", "?page=0", "page"},
		{"a page beyond 32 bits is a 422", "?page=2147483648", "page"},
		{"a negative per_page beyond 32 bits is a 422", "?per_page=-2147483649", "per_page"},
		{"a non-numeric per_page is a 422", "?per_page=ten", "per_page"},
		{"an unknown filter is a 422", "?empresa=1", "empresa"},
		{"a status outside the enum is a 422", "?status=aberto", "status"},
		{"a non-numeric id filter is a 422", "?empresa_id=abc", "empresa_id"},
		{"a repeated filter is a 422", "?status=ABERTO&status=CRIADO", "status"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			expectFields(t, e.do(http.MethodGet, "/api/v1/empregos"+tc.query, readOnly, nil), tc.field)
		})
	}
	t.Run("a page beyond 32 bits is said to be out of range, not to be no positive integer", func(t *testing.T) {
		res := e.do(http.MethodGet, "/api/v1/empregos?page=2147483648", readOnly, nil)
		if !strings.Contains(string(res.Body), "must be at most 2147483647") {
			t.Errorf("body %s", res.Body)
		}
	})
}

func TestCursoWithCategorias(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c1 := e.mustCreate("/api/v1/categorias", map[string]any{"nome": "TI"})
	c2 := e.mustCreate("/api/v1/categorias", map[string]any{"nome": "Gestão"})
	orgao := e.mustCreate("/api/v1/orgaos", map[string]any{"nome": "SMTE"})
	curso := e.mustCreate("/api/v1/cursos", map[string]any{
		"title": "Programação", "modalidade": "Semipresencial", "formato_aula": "AO_VIVO", "status": "opened", "turno": "NOITE",
		"orgao_id": id(orgao), "carga_horaria": 40, "has_certificate": false, "link_inscricao": "https://prefeitura.rio/inscricao",
		"data_inicio": "2025-03-01", "data_termino": "2025-06-30", "categoria_ids": []int64{id(c2), id(c1), id(c2)},
	})
	cats, _ := curso["categorias"].([]any)
	if len(cats) != 2 || id(cats[0].(map[string]any)) != id(c1) || cats[1].(map[string]any)["nome"] != "Gestão" {
		t.Errorf("categorias = %v", curso["categorias"])
	}
	if curso["has_certificate"] != false || curso["certificacao_oferecida"] != nil {
		t.Errorf("booleans: has_certificate %v certificacao_oferecida %v", curso["has_certificate"], curso["certificacao_oferecida"])
	}
	t.Run("the categoria lists its cursos", func(t *testing.T) {
		got := e.do(http.MethodGet, at("categorias", id(c1)), readOnly, nil).object(t)
		if list, _ := got["cursos"].([]any); len(list) != 1 || id(list[0].(map[string]any)) != id(curso) {
			t.Errorf("cursos = %v", got["cursos"])
		}
	})
	t.Run("the orgao lists its cursos", func(t *testing.T) {
		got := e.do(http.MethodGet, at("orgaos", id(orgao)), readOnly, nil).object(t)
		if list, _ := got["cursos"].([]any); len(list) != 1 {
			t.Errorf("cursos = %v", got["cursos"])
		}
	})
	t.Run("a replace swaps the categorias", func(t *testing.T) {
		res := e.do(http.MethodPut, at("cursos", id(curso)), admin, map[string]any{"title": "Programação", "modalidade": "Remoto", "categoria_ids": []int64{id(c2)}})
		expectStatus(t, res, http.StatusOK)
		got := res.object(t)
		if cats, _ := got["categorias"].([]any); len(cats) != 1 || id(cats[0].(map[string]any)) != id(c2) || got["orgao_id"] != nil {
			t.Errorf("after replace: %s", res.Body)
		}
	})
	t.Run("the list filters by categoria", func(t *testing.T) {
		var p struct{ Data []map[string]any }
		e.do(http.MethodGet, fmt.Sprintf("/api/v1/cursos?categoria_id=%d", id(c1)), readOnly, nil).decode(t, &p)
		if len(p.Data) != 0 {
			t.Errorf("categoria %d still lists %d cursos", id(c1), len(p.Data))
		}
		e.do(http.MethodGet, fmt.Sprintf("/api/v1/cursos?categoria_id=%d&modalidade=Remoto", id(c2)), readOnly, nil).decode(t, &p)
		if len(p.Data) != 1 {
			t.Errorf("categoria %d lists %d cursos, want 1", id(c2), len(p.Data))
		}
	})
	rules := []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"title and modalidade are required", map[string]any{}, []string{"title", "modalidade"}},
		{"enums are checked", map[string]any{"title": "X", "modalidade": "EAD", "formato_aula": "VHS", "status": "Draft", "turno": "x"}, []string{"modalidade", "formato_aula", "status", "turno"}},
		{"data_termino before data_inicio is rejected", map[string]any{"title": "X", "modalidade": "Remoto", "data_inicio": "2025-05-01", "data_termino": "2025-04-01"}, []string{"data_termino"}},
		{"enrollment_end_date before its start is rejected", map[string]any{"title": "X", "modalidade": "Remoto", "enrollment_start_date": "2025-05-01T10:00:00Z", "enrollment_end_date": "2025-05-01T09:59:59Z"}, []string{"enrollment_end_date"}},
		{"negative carga_horaria is rejected", map[string]any{"title": "X", "modalidade": "Remoto", "carga_horaria": -1}, []string{"carga_horaria"}},
		{"a link that is not an http URL is rejected", map[string]any{"title": "X", "modalidade": "Remoto", "link_inscricao": "javascript:alert(1)"}, []string{"link_inscricao"}},
		{"an unknown categoria is rejected on categoria_ids", map[string]any{"title": "X", "modalidade": "Remoto", "categoria_ids": []int64{999}}, []string{"categoria_ids"}},
		{"an unknown orgao is rejected on orgao_id", map[string]any{"title": "X", "modalidade": "Remoto", "orgao_id": 999}, []string{"orgao_id"}},
		{"a non-positive categoria id is rejected", map[string]any{"title": "X", "modalidade": "Remoto", "categoria_ids": []int64{0}}, []string{"categoria_ids[0]"}},
	}
	for _, tc := range rules {
		t.Run(tc.name, func(t *testing.T) {
			expectFields(t, e.do(http.MethodPost, "/api/v1/cursos", admin, tc.body), tc.fields...)
		})
	}
}

// An operation that reads no query parameter refuses one, and changes
// nothing: a DELETE told to "force" must not look as if it honoured it.
func TestAQueryParameterNoOperationReadsIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.mustCreate("/api/v1/empresas", map[string]any{"nome": "Acme"})
	for _, tc := range []struct{ method, path, who string }{
		{http.MethodGet, at("empresas", id(a)) + "?fields=nome", readOnly},
		{http.MethodDelete, at("empresas", id(a)) + "?force=true", admin},
		{http.MethodPut, at("empresas", id(a)) + "?dry_run=true", admin},
		{http.MethodPost, "/api/v1/empresas?upsert=1", admin},
	} {
		var body any
		if tc.method == http.MethodPut || tc.method == http.MethodPost {
			body = map[string]any{"nome": "Outra"}
		}
		got := e.do(tc.method, tc.path, tc.who, body)
		expectStatus(t, got, http.StatusUnprocessableEntity)
		if !strings.Contains(string(got.Body), `"code":"unknown_parameter"`) {
			t.Errorf("%s %s: %s, want an unknown_parameter", tc.method, tc.path, got.Body)
		}
	}
	got := e.do(http.MethodGet, at("empresas", id(a)), readOnly, nil)
	expectStatus(t, got, http.StatusOK)
	if got.object(t)["nome"] != "Acme" {
		t.Errorf("after the refusals: %s", got.Body)
	}
	list := e.do(http.MethodGet, "/api/v1/empresas?nome=Outra", readOnly, nil)
	expectStatus(t, list, http.StatusOK)
	if strings.Contains(string(list.Body), "Outra") {
		t.Errorf("a refused create was stored: %s", list.Body)
	}
}

// An operation that takes no body refuses one, and changes nothing: a
// DELETE whose body is not even JSON must not delete, and a list sent its
// filters as JSON must not answer as if they applied.
func TestABodyNoOperationReadsIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.mustCreate("/api/v1/empresas", map[string]any{"nome": "Acme"})
	for _, tc := range []struct {
		method, path, who string
		body              any
		contentType       string
		want              int
	}{
		{http.MethodDelete, at("empresas", id(a)), admin, map[string]any{"x": 1}, "application/json", http.StatusUnprocessableEntity},
		{http.MethodDelete, at("empresas", id(a)), admin, `{"nome": `, "application/json", http.StatusBadRequest},
		{http.MethodDelete, at("empresas", id(a)), admin, "garbage", "text/plain", http.StatusUnsupportedMediaType},
		{http.MethodGet, at("empresas", id(a)), readOnly, map[string]any{"nome": "Acme"}, "application/json", http.StatusUnprocessableEntity},
		{http.MethodGet, "/api/v1/empresas", readOnly, map[string]any{"nome": "Outra"}, "application/json", http.StatusUnprocessableEntity},
	} {
		req := e.request(tc.method, tc.path, tc.who, tc.body)
		req.Header.Set("Content-Type", tc.contentType)
		got := e.send(req)
		expectStatus(t, got, tc.want)
	}
	got := e.do(http.MethodGet, at("empresas", id(a)), readOnly, nil)
	expectStatus(t, got, http.StatusOK)
	// No body, a blank one or an empty object is no body.
	got = e.do(http.MethodGet, "/api/v1/empresas", readOnly, " \n")
	expectStatus(t, got, http.StatusOK)
	got = e.do(http.MethodDelete, at("empresas", id(a)), admin, map[string]any{})
	expectStatus(t, got, http.StatusNoContent)
}

// A client that makes a write conditional, or declares a body this API does
// not read as sent, is refused and nothing changes: a PUT with If-Match
// overwrote the row the client meant to protect, and one declared a merge
// patch nulled the members it left out.
func TestWritesTheAPICannotDoAsAskedChangeNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	esc := e.mustCreate("/api/v1/escolaridades", map[string]any{"nivel": "Médio"})
	emp := e.mustCreate("/api/v1/empregos", map[string]any{"titulo": "Pedreiro", "tipo_contratacao": "CLT", "descricao": "obra", "numero_vagas": 3})
	before := e.snapshot()
	tests := []struct {
		name, method, path string
		header             map[string]string
		body               any
		status             int
	}{
		{"a PUT if the row is as last seen", http.MethodPut, at("escolaridades", id(esc)), map[string]string{"If-Match": `"v1"`}, map[string]any{"nivel": "Mudado"}, http.StatusPreconditionFailed},
		{"a DELETE if the row is as last seen", http.MethodDelete, at("escolaridades", id(esc)), map[string]string{"If-Match": `"v1"`}, nil, http.StatusPreconditionFailed},
		// RFC 9110 13.2.1: the precondition is ignored where the answer
		// without it is not a 2xx.
		{"a PUT if a row that does not exist exists", http.MethodPut, at("escolaridades", id(esc)+1000), map[string]string{"If-Match": "*"}, map[string]any{"nivel": "Novo"}, http.StatusNotFound},
		{"a PUT declared a merge patch", http.MethodPut, at("empregos", id(emp)), map[string]string{"Content-Type": "application/merge-patch+json"}, map[string]any{"titulo": "Mestre de obras", "tipo_contratacao": "CLT"}, http.StatusUnsupportedMediaType},
		{"a PUT declared gzip", http.MethodPut, at("escolaridades", id(esc)), map[string]string{"Content-Encoding": "gzip"}, map[string]any{"nivel": "Mudado"}, http.StatusUnsupportedMediaType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := e.request(tc.method, tc.path, admin, tc.body)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			expectStatus(t, e.send(req), tc.status)
		})
	}
	if after := e.snapshot(); !maps.Equal(before, after) {
		t.Errorf("a refused write changed the data:\nbefore %v\nafter  %v", before, after)
	}
	req := e.request(http.MethodPatch, at("empregos", id(emp))+"/status", admin, map[string]any{"status": "ABERTO"})
	req.Header.Set("Content-Type", "application/merge-patch+json")
	expectStatus(t, e.send(req), http.StatusOK) // a merge patch is what this PATCH does
}
