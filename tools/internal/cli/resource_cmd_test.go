package cli_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/stack"
)

func TestResourceCommandsManageJobsResources(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	jobs := envOf(t, s, stack.JobsAdmin)
	nivel, nivel2, titulo, nome := unique("Ensino médio"), unique("Ensino superior"), unique("Pedreiro"), unique("Tecnologia")

	r := run(t, jobs, "", "escolaridades", "create", "--set", "nivel="+nivel)
	r.want(t, 0, "nivel "+nivel)
	esc := idOf(t, r)
	run(t, jobs, "", "escolaridades", "update", esc, "--set", "nivel="+nivel2).want(t, 0, "id "+esc, "nivel "+nivel2)
	run(t, jobs, "", "escolaridades", "list", "--filter", "nivel="+nivel2).
		want(t, 0, "ID NIVEL", esc+" "+nivel2, "page 1 · 20 per page · 1 in total")

	r = run(t, jobs, `{"titulo": "`+titulo+`", "tipo_contratacao": "CLT"}`, "empregos", "create", "-f", "-", "--set", "numero_vagas=3", "--set", "escolaridade_id="+esc)
	r.want(t, 0, "titulo "+titulo, "numero_vagas 3", "status CRIADO")
	emprego := idOf(t, r)
	run(t, jobs, "", "empregos", "get", emprego).want(t, 0, "tipo_contratacao CLT", "escolaridade_id "+esc)
	run(t, jobs, "", "api", "get", "jobs", "/api/v1/empregos/"+emprego).want(t, 0, `"titulo": "`+titulo+`"`, `"nivel": "`+nivel2+`"`)

	r = run(t, jobs, "", "categorias", "create", "--set", "nome="+nome)
	r.want(t, 0, "nome "+nome)
	categoria := idOf(t, r)
	run(t, jobs, "", "categorias", "delete", categoria).want(t, 0, "stderr:deleted categorias "+categoria)
	run(t, jobs, "", "categorias", "get", categoria).want(t, 1, "stderr:404 Not Found")
}

func TestResourceCommandsReportTheAPIsErrors(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	jobs := envOf(t, s, stack.JobsAdmin)
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want []string
	}{
		{"a missing resource is a 404 with its request_id", jobs,
			[]string{"empregos", "get", "999999"}, []string{"stderr:404 Not Found", "stderr:request_id: "}},
		{"a body breaking field rules lists every violation", jobs,
			[]string{"escolaridades", "create", "--set", "outro=1"}, []string{"stderr:422 Unprocessable Entity", "stderr:- nivel: ", "stderr:- outro: "}},
		{"a client without the write scope is forbidden with a hint", envOf(t, s, stack.Reader),
			[]string{"escolaridades", "create", "--set", "nivel=x"}, []string{"stderr:403 Forbidden", `stderr:"jobs:write"`, "stderr:hint: the client lacks the scope"}},
		{"a duplicate is a conflict", jobs,
			[]string{"categorias", "create", "--set", "nome=" + strings.ToUpper(createCategoria(t, jobs))}, []string{"stderr:409 Conflict"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run(t, tt.env, "", tt.args...).want(t, 1, tt.want...)
		})
	}
}

func TestResourceCommandsManageServicos(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	catalog := envOf(t, s, stack.CatalogAdmin)
	token := strings.ReplaceAll(unique("iptu"), " ", "")
	servico := writeFile(t, t.TempDir(), "servico.json", `{"nome_servico": "Segunda via do `+token+`", "orgao_gestor": ["SMF"],
		"publico_especifico": ["todos"], "resumo": "Emita a segunda via", "tema_geral": "Tributos"}`)

	r := run(t, catalog, "", "servicos", "create", "-f", servico)
	r.want(t, 0, "autor service-account-catalog-admin", "nome_servico Segunda via do "+token)
	id := idOf(t, r)
	run(t, catalog, "", "servicos", "list", "--json", "--filter", "text="+token).want(t, 0, `"data": [`, `"total": 1`, `"id": "`+id+`"`)
	run(t, catalog, "", "servicos", "update", id, "-f", servico, "--set", "status=1").want(t, 0, "status 1")
	run(t, catalog, "", "servicos", "delete", id).want(t, 0, "stderr:deleted servicos "+id)
	if n := total(t, s, stack.CatalogAdmin, client.AreaSearch, client.ServicesPath, map[string][]string{"text": {token}}); n != 0 {
		t.Errorf("servicos matching %s = %d after the delete, want 0", token, n)
	}
}

func TestResourceCommandsManageSynonyms(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	catalog := envOf(t, s, stack.CatalogAdmin)
	token := strings.ReplaceAll(unique("bicicletario"), " ", "")

	r := run(t, catalog, "", "synonyms", "create", "--set", "root="+token, "--set", `synonyms=["paraciclo", "estacionamento de bicicletas"]`)
	r.want(t, 0, "root "+token, `synonyms ["paraciclo","estacionamento de bicicletas"]`, "autor service-account-catalog-admin")
	id := idOf(t, r)
	run(t, catalog, "", "synonyms", "list", "--filter", "text="+token).
		want(t, 0, "ID ROOT SYNONYMS AUTOR LAST_UPDATE", id+" "+token, "page 1 · 20 per page · 1 in total")
	run(t, envOf(t, s, stack.Reader), "", "synonyms", "get", id, "--json").want(t, 0, `"root": "`+token+`"`)
	run(t, catalog, "", "synonyms", "update", id, "--set", `synonyms=["`+token+`", "paraciclo"]`).want(t, 0, "id "+id, `synonyms ["`+token+`","paraciclo"]`)
	run(t, catalog, "", "synonyms", "create", "--set", `synonyms=["so um"]`).want(t, 1, "stderr:422 Unprocessable Entity", "stderr:- synonyms: ")
	run(t, catalog, "", "synonyms", "delete", id).want(t, 0, "stderr:deleted synonyms "+id)
	run(t, catalog, "", "synonyms", "get", id).want(t, 1, "stderr:404 Not Found")
}

func TestCommandsRefuseBadInputBeforeSending(t *testing.T) {
	t.Parallel()
	env := tripwired(t, envOf(t, shared.Get(t), stack.CatalogAdmin))
	dir := t.TempDir()
	notJSON := writeFile(t, dir, "bad.json", `{"nome_servico": `)
	array := writeFile(t, dir, "array.json", `[1, 2]`)
	big := writeFile(t, dir, "big.json", `{"resumo": "`+strings.Repeat("a", 1<<20)+`"}`)
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{"a file that is not JSON is refused", env, []string{"servicos", "create", "-f", notJSON}, 1, "not valid JSON"},
		{"a file that is not an object is refused", env, []string{"servicos", "create", "-f", array}, 1, "not a JSON object"},
		{"a file over the API's body limit is refused", env, []string{"servicos", "create", "-f", big}, 1, "larger than 1048576 bytes"},
		{"a missing file is reported", env, []string{"servicos", "create", "-f", filepath.Join(dir, "nope.json")}, 1, "no such file"},
		{"a create without a body is a usage error", env, []string{"servicos", "create"}, 2, "give the body with -f"},
		{"a malformed --set is a usage error", env, []string{"servicos", "create", "--set", "=x"}, 2, "write member=value"},
		{"a non-numeric jobs id is a usage error", env, []string{"empregos", "get", "1;DROP"}, 2, "must be a positive integer"},
		{"a dot-dot id is a usage error", env, []string{"servicos", "get", ".."}, 2, "is not an id"},
		{"an unknown flag is a usage error", env, []string{"servicos", "list", "--bogus"}, 2, "unknown flag: --bogus"},
		{"an unknown command is a usage error", env, []string{"bogus"}, 2, `unknown command "bogus" for "municipal"`},
		{"an unknown command with a suggestion is a usage error", env, []string{"servico"}, 2, "Did you mean this?"},
		{"an unknown subcommand is a usage error", env, []string{"servicos", "lst"}, 2, `unknown command "lst" for "municipal servicos"; did you mean get or list?`},
		{"an unknown environment is a usage error", env, []string{"--env", "prod", "schemas"}, 2, `unknown environment "prod"`},
		{"missing credentials are a usage error", map[string]string{}, []string{"schemas"}, 2, "MUNICIPAL_CLIENT_ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run(t, tt.env, "", tt.args...).want(t, tt.code, "stderr:"+tt.want)
		})
	}
}

func TestTablesNeutralizeTerminalControlCharacters(t *testing.T) {
	t.Parallel()
	env := envOf(t, shared.Get(t), stack.CatalogAdmin)
	// A name may hold no control character any more (jobs refuses them),
	// but free text may, and so may rows stored before.
	token := strings.ReplaceAll(unique("bucal"), " ", "")
	resumo := "\x1b[2J\x1b]0;pwned\x07Saúde\tBucal " + token
	body, _ := json.Marshal(map[string]any{"nome_servico": "Saúde bucal " + token, "orgao_gestor": []string{"SMS"},
		"publico_especifico": []string{"todos"}, "resumo": resumo, "tema_geral": "Saúde"})
	r := run(t, env, "", "servicos", "create", "-f", writeFile(t, t.TempDir(), "servico.json", string(body)))
	r.want(t, 0, "Saúde Bucal "+token)
	id := idOf(t, r)
	shown := r.stdout
	r = run(t, env, "", "servicos", "get", id)
	r.want(t, 0, id, "Saúde Bucal "+token)
	if shown += r.stdout; strings.ContainsAny(shown, "\x1b\x07") {
		t.Errorf("the output passes control characters to the terminal: %q", shown)
	}
	var got struct{ Resumo string }
	if err := json.Unmarshal([]byte(run(t, env, "", "servicos", "get", id, "--json").stdout), &got); err != nil || got.Resumo != resumo {
		t.Errorf("--json must keep the data exactly: %q, %v", got.Resumo, err)
	}
}

func TestFlagsWinOverVariables(t *testing.T) {
	t.Parallel()
	env := envOf(t, shared.Get(t), stack.JobsAdmin)
	good := env["MUNICIPAL_JOBS_URL"]
	env["MUNICIPAL_JOBS_URL"] = "http://127.0.0.1:1/go/v1"
	run(t, env, "", "--jobs-url", good, "empregos", "list").want(t, 0, "page 1")
	run(t, env, "", "--max-attempts", "1", "empregos", "list").want(t, 1, "stderr:127.0.0.1:1")
}

// createCategoria creates a categoria through the command and returns its nome.
func createCategoria(t *testing.T, env map[string]string) string {
	t.Helper()
	nome := unique("Categoria")
	run(t, env, "", "categorias", "create", "--set", "nome="+nome).want(t, 0, "nome "+nome)
	return nome
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAnAnswerWithoutTheExpectedBodyNamesTheRequest(t *testing.T) {
	t.Parallel()
	env := envOf(t, shared.Get(t), stack.CatalogAdmin)
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK) // a proxy's empty 200 where a Servico should be
	}))
	t.Cleanup(empty.Close)
	env["MUNICIPAL_SEARCH_URL"] = empty.URL + "/search"
	run(t, env, "", "servicos", "get", "abc").
		want(t, 1, "stderr:GET "+client.ServicesPath+"/abc: the answer is not a JSON object")
}
