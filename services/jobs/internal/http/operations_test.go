package http_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// The four operations of the API document (section 4, operations 3 to 6).

func TestCreateEmprego(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	empresa := e.mustCreate("/api/v1/empresas", map[string]any{"nome": "Padaria Central"})
	escolaridade := e.mustCreate("/api/v1/escolaridades", map[string]any{"nivel": "Médio completo"})
	orgao := e.mustCreate("/api/v1/orgaos", map[string]any{"nome": "SMTE"})

	res := e.do(http.MethodPost, "/api/v1/empregos", admin, map[string]any{
		"titulo": "  Padeiro  ", "descricao": "Turno da manhã", "numero_vagas": 2, "salario_min": 1800, "salario_max": 2500,
		"latitude": -22.9068, "longitude": -43.1729, "data_inicio_prevista": "2025-03-01", "data_limite_candidatura": "2025-02-15T18:00:00-03:00",
		"empresa_id": id(empresa), "escolaridade_id": id(escolaridade), "orgao_id": id(orgao),
		"jornada_trabalho": "INTEGRAL", "tipo_contratacao": "CLT", "turno": "MANHA",
	})
	expectStatus(t, res, http.StatusCreated)
	got := res.object(t)
	if loc := res.Header.Get("Location"); loc != at("empregos", id(got)) {
		t.Errorf("Location = %q, want %q", loc, at("empregos", id(got)))
	}
	want := map[string]any{
		"titulo": "Padeiro", "descricao": "Turno da manhã", "beneficios": nil, "numero_vagas": 2.0, "salario_min": 1800.0, "salario_max": 2500.0,
		"latitude": -22.9068, "data_inicio_prevista": "2025-03-01T03:00:00Z", "data_limite_candidatura": "2025-02-15T21:00:00Z",
		"status": "CRIADO", "tipo_contratacao": "CLT", "turno": "MANHA", "empresa_id": float64(id(empresa)),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	for member, rel := range map[string]map[string]any{"empresa": empresa, "escolaridade": escolaridade, "orgao": orgao} {
		nested, ok := got[member].(map[string]any)
		if !ok || id(nested) != id(rel) || len(nested) != 2 {
			t.Errorf("%s = %#v, want the full %s object %v", member, got[member], member, rel)
		}
	}
	stored := e.do(http.MethodGet, at("empregos", id(got)), admin, nil)
	if string(stored.Body) != string(res.Body) {
		t.Errorf("created body differs from stored:\n%s\n%s", res.Body, stored.Body)
	}
}

func TestCreateEmpregoRejectsEachRule(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	valid := func() map[string]any { return map[string]any{"titulo": "Caixa", "tipo_contratacao": "CLT"} }
	tests := []struct {
		name   string
		change func(m map[string]any)
		fields []string
	}{
		{"a missing titulo is required", func(m map[string]any) { delete(m, "titulo") }, []string{"titulo"}},
		{"a blank titulo is required", func(m map[string]any) { m["titulo"] = " \t " }, []string{"titulo"}},
		{"a missing tipo_contratacao is required", func(m map[string]any) { delete(m, "tipo_contratacao") }, []string{"tipo_contratacao"}},
		{"a tipo_contratacao outside the enum is rejected", func(m map[string]any) { m["tipo_contratacao"] = "clt" }, []string{"tipo_contratacao"}},
		{"a jornada_trabalho outside the enum is rejected", func(m map[string]any) { m["jornada_trabalho"] = "NOTURNO" }, []string{"jornada_trabalho"}},
		{"a turno outside the enum is rejected", func(m map[string]any) { m["turno"] = "MADRUGADA" }, []string{"turno"}},
		{"a status outside the enum is rejected", func(m map[string]any) { m["status"] = "PUBLICADO" }, []string{"status"}},
		{"a new emprego cannot start in EM_ANALISE", func(m map[string]any) { m["status"] = "EM_ANALISE" }, []string{"status"}},
		{"a new emprego cannot start ENCERRADO", func(m map[string]any) { m["status"] = "ENCERRADO" }, []string{"status"}},
		{"salario_min above salario_max is rejected", func(m map[string]any) { m["salario_min"], m["salario_max"] = 3000, 2000 }, []string{"salario_min"}},
		{"a negative salario is rejected", func(m map[string]any) { m["salario_max"] = -1 }, []string{"salario_max"}},
		{"a fractional salario is rejected", func(m map[string]any) { m["salario_min"] = 1500.5 }, []string{"salario_min"}},
		{"a salario beyond 32 bits is rejected", func(m map[string]any) { m["salario_max"] = 1 << 40 }, []string{"salario_max"}},
		{"zero numero_vagas is rejected", func(m map[string]any) { m["numero_vagas"] = 0 }, []string{"numero_vagas"}},
		{"latitude 91 is rejected", func(m map[string]any) { m["latitude"] = 91 }, []string{"latitude"}},
		{"longitude -180.5 is rejected", func(m map[string]any) { m["longitude"] = -180.5 }, []string{"longitude"}},
		{"an unknown empresa_id is rejected on that field", func(m map[string]any) { m["empresa_id"] = 999999 }, []string{"empresa_id"}},
		{"an unknown escolaridade_id is rejected on that field", func(m map[string]any) { m["escolaridade_id"] = 999999 }, []string{"escolaridade_id"}},
		{"an unknown orgao_id is rejected on that field", func(m map[string]any) { m["orgao_id"] = 999999 }, []string{"orgao_id"}},
		{"every unknown reference is listed at once", func(m map[string]any) {
			m["empresa_id"], m["escolaridade_id"], m["orgao_id"] = 999999, 999998, 999997
		}, []string{"empresa_id", "escolaridade_id", "orgao_id"}},
		{"a non-positive empresa_id is rejected", func(m map[string]any) { m["empresa_id"] = 0 }, []string{"empresa_id"}},
		{"a date that is not a date is rejected", func(m map[string]any) { m["data_inicio_prevista"] = "next monday" }, []string{"data_inicio_prevista"}},
		{"a string where a number belongs is rejected", func(m map[string]any) { m["numero_vagas"] = "3" }, []string{"numero_vagas"}},
		{"an unknown member is rejected", func(m map[string]any) { m["salary"] = 1000 }, []string{"salary"}},
		{"a NUL character in text is rejected", func(m map[string]any) { m["descricao"] = "a\x00b" }, []string{"descricao"}},
		{"a line break in titulo is rejected", func(m map[string]any) { m["titulo"] = "Padeiro\r\nX-Injected: 1" }, []string{"titulo"}},
		{"an escape in titulo is rejected", func(m map[string]any) { m["titulo"] = "Padeiro \x1b[31mvermelho" }, []string{"titulo"}},
		{"a titulo over 255 characters is rejected", func(m map[string]any) { m["titulo"] = strings.Repeat("é", 256) }, []string{"titulo"}},
		{"every violation is listed at once", func(m map[string]any) {
			delete(m, "titulo")
			m["tipo_contratacao"], m["latitude"], m["salario_min"], m["salario_max"] = "X", 91, 5, 1
		}, []string{"titulo", "tipo_contratacao", "latitude", "salario_min"}},
		{"an unknown reference is listed beside the other violations", func(m map[string]any) {
			m["titulo"], m["empresa_id"], m["orgao_id"] = "", 999999, "x"
		}, []string{"titulo", "orgao_id", "empresa_id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := valid()
			tc.change(body)
			before := e.count("empregos")
			expectFields(t, e.do(http.MethodPost, "/api/v1/empregos", admin, body), tc.fields...)
			if after := e.count("empregos"); after != before {
				t.Errorf("a rejected create changed the number of empregos from %d to %d", before, after)
			}
		})
	}
}

func TestCreateEscolaridade(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.do(http.MethodPost, "/api/v1/escolaridades", admin, map[string]any{"nivel": "Superior completo"})
	expectStatus(t, res, http.StatusCreated)
	got := res.object(t)
	if got["nivel"] != "Superior completo" || id(got) < 1 || res.Header.Get("Location") != at("escolaridades", id(got)) {
		t.Errorf("created %s with Location %q", res.Body, res.Header.Get("Location"))
	}
	if empregos, ok := got["empregos"].([]any); !ok || len(empregos) != 0 {
		t.Errorf("empregos = %#v, want an empty array", got["empregos"])
	}

	tests := []struct {
		name   string
		body   any
		status int
	}{
		{"a missing nivel is a 422", map[string]any{}, http.StatusUnprocessableEntity},
		{"a numeric nivel is a 422", map[string]any{"nivel": 3}, http.StatusUnprocessableEntity},
		{"the same nivel in another case is a 409", map[string]any{"nivel": "SUPERIOR COMPLETO"}, http.StatusConflict},
		{"the same nivel with surrounding spaces is a 409", map[string]any{"nivel": " superior completo "}, http.StatusConflict},
		{"a nivel with a control character is a 422", map[string]any{"nivel": "Técnico\u0001"}, http.StatusUnprocessableEntity},
		{"a nivel with a line break inside is a 422", map[string]any{"nivel": "Técnico\nsuperior"}, http.StatusUnprocessableEntity},
		{"a nivel with DEL is a 422", map[string]any{"nivel": "Técnico\u007f"}, http.StatusUnprocessableEntity},
		{"an echoed id and empregos array are ignored", map[string]any{"id": 42, "nivel": "Técnico", "empregos": []any{map[string]any{"id": 1}}}, http.StatusCreated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectStatus(t, e.do(http.MethodPost, "/api/v1/escolaridades", admin, tc.body), tc.status)
		})
	}
}

func TestReplaceEscolaridade(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	fund := e.mustCreate("/api/v1/escolaridades", map[string]any{"nivel": "Fundamental"})
	e.mustCreate("/api/v1/escolaridades", map[string]any{"nivel": "Médio"})
	emprego := e.mustCreate("/api/v1/empregos", map[string]any{"titulo": "Auxiliar", "tipo_contratacao": "CLT", "escolaridade_id": id(fund)})

	res := e.do(http.MethodPut, at("escolaridades", id(fund)), admin, map[string]any{"nivel": "Fundamental completo"})
	expectStatus(t, res, http.StatusOK)
	got := res.object(t)
	if got["nivel"] != "Fundamental completo" || id(got) != id(fund) {
		t.Errorf("updated = %s", res.Body)
	}
	if list, _ := got["empregos"].([]any); len(list) != 1 || id(list[0].(map[string]any)) != id(emprego) {
		t.Errorf("empregos = %#v, want the one posting", got["empregos"])
	}

	tests := []struct {
		name   string
		path   string
		body   any
		status int
	}{
		{"an unknown id is a 404", at("escolaridades", 999999), map[string]any{"nivel": "X"}, http.StatusNotFound},
		{"a non-numeric id is a 404", "/api/v1/escolaridades/abc", map[string]any{"nivel": "X"}, http.StatusNotFound},
		{"a negative id is a 404", "/api/v1/escolaridades/-1", map[string]any{"nivel": "X"}, http.StatusNotFound},
		{"an id beyond 64 bits is a 404", "/api/v1/escolaridades/99999999999999999999", map[string]any{"nivel": "X"}, http.StatusNotFound},
		{"a signed id is a 404", "/api/v1/escolaridades/+1", map[string]any{"nivel": "X"}, http.StatusNotFound},
		{"a nivel another row has, in another case, is a 409", at("escolaridades", id(fund)), map[string]any{"nivel": "MÉDIO"}, http.StatusConflict},
		{"a blank nivel is a 422", at("escolaridades", id(fund)), map[string]any{"nivel": ""}, http.StatusUnprocessableEntity},
		{"the row's own nivel in another case is allowed", at("escolaridades", id(fund)), map[string]any{"nivel": "FUNDAMENTAL COMPLETO"}, http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectStatus(t, e.do(http.MethodPut, tc.path, admin, tc.body), tc.status)
		})
	}
}

func TestCreateCategoria(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res := e.do(http.MethodPost, "/api/v1/categorias", admin, map[string]any{"nome": "Tecnologia"})
	expectStatus(t, res, http.StatusCreated)
	got := res.object(t)
	if got["nome"] != "Tecnologia" || res.Header.Get("Location") != at("categorias", id(got)) {
		t.Errorf("created %s with Location %q", res.Body, res.Header.Get("Location"))
	}
	if cursos, ok := got["cursos"].([]any); !ok || len(cursos) != 0 {
		t.Errorf("cursos = %#v, want an empty array", got["cursos"])
	}
	dup := e.do(http.MethodPost, "/api/v1/categorias", admin, map[string]any{"nome": "tecnologia"})
	expectStatus(t, dup, http.StatusConflict)
	if f := dup.fields(t); len(f) != 1 || f[0] != "nome" {
		t.Errorf("409 names %v, want nome", f)
	}
	expectFields(t, e.do(http.MethodPost, "/api/v1/categorias", admin, map[string]any{"nome": nil}), "nome")
}

func TestDocumentOperationsNeedTokenAndScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	esc := e.mustCreate("/api/v1/escolaridades", map[string]any{"nivel": "Médio"})
	ops := []struct {
		name, method, path string
		body               any
	}{
		{"create emprego", http.MethodPost, "/api/v1/empregos", map[string]any{"titulo": "X", "tipo_contratacao": "CLT"}},
		{"create escolaridade", http.MethodPost, "/api/v1/escolaridades", map[string]any{"nivel": "Y"}},
		{"replace escolaridade", http.MethodPut, at("escolaridades", id(esc)), map[string]any{"nivel": "Z"}},
		{"create categoria", http.MethodPost, "/api/v1/categorias", map[string]any{"nome": "W"}},
	}
	for _, op := range ops {
		t.Run(op.name+" without a token is a 401 with a bearer challenge", func(t *testing.T) {
			res := e.do(op.method, op.path, "", op.body)
			expectStatus(t, res, http.StatusUnauthorized)
			if !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate = %q", res.Header.Get("WWW-Authenticate"))
			}
		})
		t.Run(op.name+" with a read-only token is a 403 naming jobs:write", func(t *testing.T) {
			res := e.do(op.method, op.path, readOnly, op.body)
			expectStatus(t, res, http.StatusForbidden)
			if h := res.Header.Get("WWW-Authenticate"); !strings.Contains(h, "insufficient_scope") || !strings.Contains(h, "jobs:write") {
				t.Errorf("WWW-Authenticate = %q", h)
			}
		})
		t.Run(op.name+" with a token of another API is a 403", func(t *testing.T) {
			expectStatus(t, e.do(op.method, op.path, noJobs, op.body), http.StatusForbidden)
		})
	}
	t.Run("reading with a token without jobs:read is a 403", func(t *testing.T) {
		expectStatus(t, e.do(http.MethodGet, "/api/v1/escolaridades", noJobs, nil), http.StatusForbidden)
	})
	t.Run("reading with a read-only token is allowed", func(t *testing.T) {
		expectStatus(t, e.do(http.MethodGet, at("escolaridades", id(esc)), readOnly, nil), http.StatusOK)
	})
	if got := e.count("escolaridades"); got != 1 {
		t.Errorf("refused requests left %d escolaridades, want 1", got)
	}
}

// A replace that breaks a rule also names the references that point at no
// row, so a client fixes every mistake from one 422 (a curso's categoria_ids
// as well as an emprego's single ids), and neither a rule nor a reference
// that v already flags is looked up twice.
func TestAReplaceListsUnknownReferencesBesideTheOtherViolations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cat := e.mustCreate("/api/v1/categorias", map[string]any{"nome": "Tecnologia"})
	curso := e.mustCreate("/api/v1/cursos", map[string]any{"title": "Go", "modalidade": "Remoto", "categoria_ids": []int64{id(cat)}})
	res := e.do(http.MethodPut, at("cursos", id(curso)), admin, map[string]any{"title": " ", "modalidade": "Remoto", "categoria_ids": []int64{id(cat), 999999}})
	expectFields(t, res, "title", "categoria_ids")
	if !strings.Contains(string(res.Body), "999999") {
		t.Errorf("the 422 does not name the missing categoria 999999: %s", res.Body)
	}
	got := e.do(http.MethodGet, at("cursos", id(curso)), readOnly, nil)
	expectStatus(t, got, http.StatusOK)
	if got.object(t)["title"] != "Go" {
		t.Errorf("a refused replace changed the curso: %s", got.Body)
	}
}

// Repeated categoria_ids count once (README), so the limit of 100 is on
// distinct categorias: 150 copies of one id are one categoria, 101
// distinct ids are too many.
func TestTheLimitOfCategoriaIDsCountsDistinctIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cat := e.mustCreate("/api/v1/categorias", map[string]any{"nome": "Saúde"})
	same := make([]int64, 150)
	for i := range same {
		same[i] = id(cat)
	}
	curso := e.mustCreate("/api/v1/cursos", map[string]any{"title": "Primeiros socorros", "modalidade": "Remoto", "categoria_ids": same})
	if cats, _ := curso["categorias"].([]any); len(cats) != 1 {
		t.Errorf("150 copies of one categoria id gave categorias %v, want one", curso["categorias"])
	}
	distinct := make([]int64, jobs.MaxCategorias+1)
	for i := range distinct {
		distinct[i] = int64(1000 + i)
	}
	res := e.do(http.MethodPost, "/api/v1/cursos", admin, map[string]any{"title": "Demais", "modalidade": "Remoto", "categoria_ids": distinct})
	expectFields(t, res, "categoria_ids")
	if !strings.Contains(string(res.Body), `"code":"max_length"`) {
		t.Errorf("101 distinct categoria ids: %s, want a max_length", res.Body)
	}
}
