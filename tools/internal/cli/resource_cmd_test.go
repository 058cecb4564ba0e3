package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

func TestResourceCommandsManageResources(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t)
	jobs := api.env(t, devidptest.JobsAdmin)
	catalog := api.env(t, devidptest.CatalogAdmin)
	dir := t.TempDir()
	servico := writeFile(t, dir, "servico.json", `{"nome_servico": "Segunda via do IPTU", "orgao_gestor": ["SMF"],
		"publico_especifico": ["todos"], "resumo": "Emita a segunda via", "tema_geral": "Tributos"}`)

	steps := []struct {
		name  string
		env   map[string]string
		stdin string
		args  []string
		code  int
		want  []string
	}{
		{"creating an escolaridade from flags prints it as a table", jobs, "",
			[]string{"escolaridades", "create", "--set", "nivel=Ensino médio"}, 0, []string{"id      1", "nivel   Ensino médio"}},
		{"updating it replaces the level", jobs, "",
			[]string{"escolaridades", "update", "1", "--set", "nivel=Ensino superior"}, 0, []string{"nivel   Ensino superior"}},
		{"listing escolaridades shows a table with a footer", jobs, "",
			[]string{"escolaridades", "list"}, 0, []string{"ID  NIVEL", "1   Ensino superior", "page 1 · 20 per page · 1 in total"}},
		{"creating an emprego reads the body from standard input", jobs, `{"titulo": "Pedreiro", "tipo_contratacao": "CLT"}`,
			[]string{"empregos", "create", "-f", "-", "--set", "numero_vagas=3"}, 0, []string{"titulo            Pedreiro", "numero_vagas      3"}},
		{"getting the emprego by id shows it", jobs, "",
			[]string{"empregos", "get", "2"}, 0, []string{"tipo_contratacao  CLT"}},
		{"creating a categoria and listing categorias", jobs, "",
			[]string{"categorias", "create", "--set", "nome=Tecnologia"}, 0, []string{"nome  Tecnologia"}},
		{"creating a servico from a file sets its author to the caller", catalog, "",
			[]string{"servicos", "create", "-f", servico}, 0, []string{"autor service-account-catalog-admin", "nome_servico        Segunda via do IPTU"}},
		{"a list with --json prints the API's envelope", catalog, "",
			[]string{"servicos", "list", "--json"}, 0, []string{`"data": [`, `"total": 1`}},
		{"a missing resource is a 404 and exit status 1", jobs, "",
			[]string{"empregos", "get", "99"}, 1, []string{"stderr:404 Not Found", "stderr:request_id: "}},
		{"a body breaking field rules lists every violation", jobs, "",
			[]string{"escolaridades", "create", "--set", "outro=1"}, 1, []string{"stderr:422 Unprocessable Entity", "stderr:- nivel: is required (required)"}},
		{"a client without the write scope is forbidden with a hint", api.env(t, devidptest.Reader), "",
			[]string{"escolaridades", "create", "--set", "nivel=x"}, 1, []string{"stderr:403 Forbidden", `stderr:"jobs:write"`, "stderr:hint: the client lacks the scope"}},
		{"deleting a categoria reports it", jobs, "",
			[]string{"categorias", "delete", "3"}, 0, []string{"stderr:deleted categorias 3"}},
		{"the generic api command reaches any route", jobs, "",
			[]string{"api", "get", "jobs", "/api/v1/empregos/2"}, 0, []string{`"titulo": "Pedreiro"`}},
	}
	for _, s := range steps {
		if !t.Run(s.name, func(t *testing.T) { run(t, s.env, s.stdin, s.args...).want(t, s.code, s.want...) }) {
			t.FailNow()
		}
	}
	if n := api.count("categorias"); n != 0 {
		t.Errorf("categorias left = %d, want 0 after the delete", n)
	}
}

func TestCommandsRefuseBadInputBeforeSending(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t)
	env := api.env(t, devidptest.CatalogAdmin)
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
		{"an unknown environment is a usage error", env, []string{"--env", "prod", "schemas"}, 2, `unknown environment "prod"`},
		{"missing credentials are a usage error", map[string]string{}, []string{"schemas"}, 2, "MUNICIPAL_CLIENT_ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, tt.env, "", tt.args...).want(t, tt.code, "stderr:"+tt.want)
		})
	}
	if n := api.postCount(); n != 0 {
		t.Errorf("the API received %d POSTs, want none", n)
	}
}

func TestTablesNeutralizeTerminalControlCharacters(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t)
	env := api.env(t, devidptest.JobsAdmin)
	run(t, env, "", "categorias", "create", "--set", `nome="\u001b[2J\u001b]0;pwned\u0007Saúde\tBucal"`).want(t, 0, "Saúde Bucal")
	r := run(t, env, "", "categorias", "list")
	r.want(t, 0, "Saúde Bucal")
	if strings.ContainsAny(r.stdout, "\x1b\x07") {
		t.Errorf("the table passes control characters to the terminal: %q", r.stdout)
	}
	var page struct{ Data []struct{ Nome string } }
	if err := json.Unmarshal([]byte(run(t, env, "", "categorias", "list", "--json").stdout), &page); err != nil || !strings.Contains(page.Data[0].Nome, "\x1b[2J") {
		t.Errorf("--json must keep the data exactly: %+v, %v", page, err)
	}
}

func TestFlagsWinOverVariables(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t)
	env := api.env(t, devidptest.JobsAdmin)
	good := env["MUNICIPAL_JOBS_URL"]
	env["MUNICIPAL_JOBS_URL"] = "http://127.0.0.1:1/go/v1"
	run(t, env, "", "--jobs-url", good, "empregos", "list").want(t, 0, "page 1")
	run(t, env, "", "--max-attempts", "1", "empregos", "list").want(t, 1, "stderr:127.0.0.1:1")
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
