package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/stack"
)

// servicoLine returns one JSON line of a valid Servico called nome.
func servicoLine(nome string) string {
	b, _ := json.Marshal(map[string]any{"nome_servico": nome, "orgao_gestor": []string{"SMF"},
		"publico_especifico": []string{"todos"}, "resumo": "r", "tema_geral": "t"})
	return string(b)
}

// servicosMatching counts the servicos whose name contains token.
func servicosMatching(t *testing.T, s *stack.Stack, token string) int64 {
	t.Helper()
	return total(t, s, stack.CatalogAdmin, client.AreaSearch, client.ServicesPath, map[string][]string{"text": {token}})
}

// token returns a word no other test puts in a name.
func token() string { return strings.ReplaceAll(unique("t"), " ", "") }

func TestImportCreatesEveryGoodLineAndReportsTheRest(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	env := envOf(t, s, stack.CatalogAdmin)
	tok := token()
	tooLong := strings.Replace(servicoLine(tok+" longo"), `"resumo":"r"`, `"resumo":"`+strings.Repeat("é", 351)+`"`, 1)
	lines := []string{
		servicoLine("IPTU " + tok),      // 1
		"",                              // 2: blank, skipped
		`{"nome_servico": "sem fim"`,    // 3: not JSON
		servicoLine("ISS " + tok),       // 4
		tooLong,                         // 5: 422
		servicoLine("Alvará " + tok),    // 6
		`[1]`,                           // 7: not an object
		servicoLine("Habite-se " + tok), // 8
	}
	path := writeFile(t, t.TempDir(), "servicos-2025.jsonl", strings.Join(lines, "\n"))

	run(t, env, "", "import", "--concurrency", "3", path).want(t, 1,
		"servicos from "+path+": 4 created (0 by an earlier run), 3 failed, 7 lines",
		"201 Created 4", "422 Unprocessable Entity 1", "invalid line 2",
		"LINE ERROR", "3 not valid JSON", "5 the request has invalid fields; resumo: ", "[request_id ", "7 not a JSON object",
		"stderr:importing servicos", "stderr:3 of 7 lines failed")
	if n := servicosMatching(t, s, tok); n != 4 {
		t.Errorf("servicos named with %s = %d, want the 4 good lines", tok, n)
	}
}

func TestImportPrintsItsSummaryAsJSON(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	env := envOf(t, s, stack.CatalogAdmin)
	tok := token()
	stdin := servicoLine("IPTU "+tok) + "\n" + `{"nome_servico": "` + tok + `"}` + "\n" + "nope\n"
	r := run(t, env, stdin, "import", "--resource", "servicos", "--json", "--no-progress", "-")
	r.want(t, 1)
	var sum struct {
		Created, Replayed, Failed, Total int
		ByStatus                         map[string]int `json:"by_status"`
		Failures                         []struct {
			Line   int
			Status int
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("--json summary %q: %v", r.stdout, err)
	}
	if sum.Created != 1 || sum.Replayed != 0 || sum.Failed != 2 || sum.Total != 3 || sum.ByStatus["201 Created"] != 1 ||
		len(sum.Failures) != 2 || sum.Failures[0].Line != 2 || sum.Failures[0].Status != 422 || sum.Failures[1].Line != 3 {
		t.Errorf("summary = %+v, want 1 created, a 422 on line 2 and an invalid line 3", sum)
	}
	if r.stderr != "error: 2 of 3 lines failed\n" {
		t.Errorf("stderr = %q, want only the final error without a progress bar", r.stderr)
	}
	if n := servicosMatching(t, s, tok); n != 1 {
		t.Errorf("servicos named with %s = %d, want 1", tok, n)
	}
}

func TestImportReadsStandardInputAndNamedResources(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	env := envOf(t, s, stack.JobsAdmin)
	niveis := []string{unique("Fundamental"), unique("Médio")}
	stdin := `{"nivel": "` + niveis[0] + `"}` + "\n" + `{"nivel": "` + niveis[1] + `"}` + "\r\n"
	run(t, env, stdin, "import", "--resource", "escolaridades", "-").want(t, 0, "escolaridades from -: 2 created (0 by an earlier run), 0 failed, 2 lines")
	for _, n := range niveis {
		if got := total(t, s, stack.JobsAdmin, client.AreaJobs, client.EscolaridadesPath, map[string][]string{"nivel": {n}}); got != 1 {
			t.Errorf("escolaridades %q = %d, want 1", n, got)
		}
	}
}

func TestImportRefusesWhatItCannotImport(t *testing.T) {
	t.Parallel()
	env := tripwired(t, envOf(t, shared.Get(t), stack.JobsAdmin))
	dir := t.TempDir()
	vagas := writeFile(t, dir, "vagas.jsonl", `{"titulo": "x"}`)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a file name naming no resource needs --resource", []string{"import", vagas}, 2, "set --resource"},
		{"an unknown --resource is refused", []string{"import", "--resource", "vagas", vagas}, 2, `--resource "vagas"`},
		{"a concurrency of zero is refused", []string{"import", "--resource", "empregos", "--concurrency", "0", vagas}, 2, "--concurrency"},
		{"a missing file is reported", []string{"import", dir + "/empregos.jsonl"}, 1, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run(t, env, "", tt.args...).want(t, tt.code, "stderr:"+tt.want)
		})
	}
}

func TestImportSkipsOverlongLinesAndGoesOn(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	env := envOf(t, s, stack.JobsAdmin)
	nome := unique("ACME")
	long := `{"nome": "` + strings.Repeat("x", 1<<20) + `"}`
	stdin := long + "\n" + `{"nome": "` + nome + `"}` + "\n"
	run(t, env, stdin, "import", "--resource", "empresas", "--no-progress", "-").
		want(t, 1, "1 created (0 by an earlier run), 1 failed, 2 lines", "1 longer than 1048576 bytes")
	if n := total(t, s, stack.JobsAdmin, client.AreaJobs, client.EmpresasPath, map[string][]string{"nome": {nome}}); n != 1 {
		t.Errorf("empresas %q = %d, want only the short line", nome, n)
	}
}

func TestImportStopsWhenInterrupted(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	env := envOf(t, s, stack.JobsAdmin)
	const lines = 500
	nome := unique("Empresa interrompida")
	count := func() int64 {
		return total(t, s, stack.JobsAdmin, client.AreaJobs, client.EmpresasPath, map[string][]string{"nome": {nome}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // Ctrl-C once a few lines are stored
		for ctx.Err() == nil && count() < 3 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	stdin := strings.Repeat(`{"nome": "`+nome+`"}`+"\n", lines)
	r := runContext(ctx, env, stdin, "import", "--resource", "empresas", "--concurrency", "1", "--no-progress", "-")
	r.want(t, 1, "stderr:import interrupted after")
	stored := count()
	if stored < 3 || stored >= lines/2 {
		t.Errorf("empresas stored = %d of %d lines; the import must stop soon after the interruption", stored, lines)
	}
	// The one request in flight when the import was interrupted may have
	// been stored although its answer never came back.
	m := regexp.MustCompile(`: (\d+) created`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no count of created lines in the summary:\n%s", r.stdout)
	}
	if created, _ := strconv.ParseInt(m[1], 10, 64); created > stored || stored > created+1 {
		t.Errorf("the summary reports %d created, the database holds %d:\n%s", created, stored, r.stdout)
	}
}

func TestImportLetsTheRequestsInFlightEndWhenInterrupted(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	env := envOf(t, s, stack.JobsAdmin)
	// A proxy in front of the gateway holds each POST until released, so
	// that the interruption comes while two requests are in flight.
	jobs, err := url.Parse(s.JobsBaseURL())
	if err != nil {
		t.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: jobs.Scheme, Host: jobs.Host})
	arrived, release := make(chan struct{}, 16), make(chan struct{})
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			arrived <- struct{}{}
			<-release
			// The client's connection decides whether the request ends; the
			// forwarded one must not die with the proxy's handler.
			r = r.WithContext(context.WithoutCancel(r.Context()))
		}
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	env["MUNICIPAL_JOBS_URL"] = proxy.URL + jobs.Path

	nome := unique("Empresa em voo")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // Ctrl-C once both workers have a request in flight
		<-arrived
		<-arrived
		cancel()
		time.Sleep(200 * time.Millisecond)
		close(release)
	}()
	stdin := strings.Repeat(`{"nome": "`+nome+`"}`+"\n", 10)
	r := runContext(ctx, env, stdin, "import", "--resource", "empresas", "--concurrency", "2", "--no-progress", "-")
	r.want(t, 1, "2 created (0 by an earlier run), 0 failed, 2 lines", "stderr:import interrupted after 2 lines")
	if stored := total(t, s, stack.JobsAdmin, client.AreaJobs, client.EmpresasPath, map[string][]string{"nome": {nome}}); stored != 2 {
		t.Errorf("empresas stored = %d, want the 2 in flight when interrupted", stored)
	}
}

func TestImportingTheSameFileAgainReplaysInsteadOfDuplicating(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	env := envOf(t, s, stack.JobsAdmin)
	// Empresa names may repeat, so only the Idempotency-Key keeps a second
	// run from creating every line again.
	nomes := []string{unique("Construtora"), unique("Padaria")}
	path := writeFile(t, t.TempDir(), "empresas.jsonl", `{"nome": "`+nomes[0]+`"}`+"\n"+`{"nome": "`+nomes[1]+`"}`+"\n")
	run(t, env, "", "import", "--no-progress", path).want(t, 0, "2 created (0 by an earlier run), 0 failed, 2 lines")
	run(t, env, "", "import", "--no-progress", path).want(t, 0, "2 created (2 by an earlier run), 0 failed, 2 lines")
	for _, n := range nomes {
		if got := total(t, s, stack.JobsAdmin, client.AreaJobs, client.EmpresasPath, map[string][]string{"nome": {n}}); got != 1 {
			t.Errorf("empresas %q = %d after two runs, want 1", n, got)
		}
	}
}
