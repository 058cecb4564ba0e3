package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

// servicoLine returns one JSON line of a valid Servico called nome.
func servicoLine(nome string) string {
	b, _ := json.Marshal(map[string]any{"nome_servico": nome, "orgao_gestor": []string{"SMF"},
		"publico_especifico": []string{"todos"}, "resumo": "r", "tema_geral": "t"})
	return string(b)
}

func TestImportCreatesEveryGoodLineAndReportsTheRest(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t)
	env := api.env(t, devidptest.CatalogAdmin)
	lines := []string{
		servicoLine("IPTU"),          // 1
		"",                           // 2: blank, skipped
		`{"nome_servico": "sem fim"`, // 3: not JSON
		servicoLine("ISS"),           // 4
		`{"nome_servico": "x", "resumo": "` + strings.Repeat("é", 351) + `"}`, // 5: 422
		servicoLine("Alvará"),    // 6
		`[1]`,                    // 7: not an object
		servicoLine("Habite-se"), // 8
	}
	path := writeFile(t, t.TempDir(), "servicos-2025.jsonl", strings.Join(lines, "\n"))
	api.setThrottle(3)

	r := run(t, env, "", "import", "--concurrency", "3", path)
	r.want(t, 1,
		"servicos from "+path+": 4 created (0 by an earlier run), 3 failed, 7 lines",
		"201 Created 4", "422 Unprocessable Entity 1", "invalid line 2",
		"LINE ERROR", "3 not valid JSON", "5 the request has invalid fields; resumo: must be at most 350 characters [request_id", "7 not a JSON object",
		"stderr:importing servicos", "stderr:3 of 7 lines failed")
	if n := api.count("services"); n != 4 {
		t.Fatalf("the API holds %d servicos, want the 4 good lines:\n%s", n, api.itemsJSON("services"))
	}
	if n := api.postCount(); n != 3+5 {
		t.Errorf("POSTs = %d, want 5 lines sent plus 3 throttled retries", n)
	}

	r = run(t, env, "", "import", "--json", "--no-progress", path)
	r.want(t, 1)
	var s struct {
		Created, Replayed, Failed, Total int
		ByStatus                         map[string]int `json:"by_status"`
		Failures                         []struct {
			Line   int
			Status int
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("--json summary %q: %v", r.stdout, err)
	}
	if s.Created != 4 || s.Replayed != 4 || s.Failed != 3 || s.ByStatus["201 Created"] != 4 || len(s.Failures) != 3 || s.Failures[1].Line != 5 || s.Failures[1].Status != 422 {
		t.Errorf("summary = %+v, want the same outcome as the first run", s)
	}
	if n := api.count("services"); n != 4 {
		t.Errorf("a second run of the same file left %d servicos, want 4: its lines must replay, not duplicate", n)
	}
	if r.stderr != "error: 3 of 7 lines failed\n" {
		t.Errorf("stderr = %q, want only the final error without a progress bar", r.stderr)
	}
}

func TestImportReadsStandardInputAndNamedResources(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t)
	env := api.env(t, devidptest.JobsAdmin)
	stdin := `{"nivel": "Fundamental"}` + "\n" + `{"nivel": "Médio"}` + "\r\n"
	run(t, env, stdin, "import", "--resource", "escolaridades", "-").want(t, 0, "escolaridades from -: 2 created (0 by an earlier run), 0 failed, 2 lines")
	if n := api.count("escolaridades"); n != 2 {
		t.Errorf("escolaridades = %d, want 2", n)
	}
}

func TestImportRefusesWhatItCannotImport(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t)
	env := api.env(t, devidptest.JobsAdmin)
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
	api := newFakeAPI(t)
	env := api.env(t, devidptest.JobsAdmin)
	long := `{"nome": "` + strings.Repeat("x", 1<<20) + `"}`
	stdin := long + "\n" + `{"nome": "ACME"}` + "\n"
	run(t, env, stdin, "import", "--resource", "empresas", "--no-progress", "-").
		want(t, 1, "1 created (0 by an earlier run), 1 failed, 2 lines", "1 longer than 1048576 bytes")
	if n := api.count("empresas"); n != 1 {
		t.Errorf("empresas = %d, want only the short line", n)
	}
}

func TestImportStopsWhenInterrupted(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t)
	env := api.env(t, devidptest.JobsAdmin)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	api.onPost = func(n int) {
		if n == 3 {
			cancel()
		}
	}
	var lines []string
	for i := range 500 {
		lines = append(lines, fmt.Sprintf(`{"nome": "Empresa %d"}`, i))
	}
	r := runContext(ctx, env, strings.Join(lines, "\n"), "import", "--resource", "empresas", "--concurrency", "1", "--no-progress", "-")
	r.want(t, 1, "stderr:import interrupted after")
	if n := api.postCount(); n >= 10 {
		t.Errorf("POSTs = %d; the import went on after the interruption", n)
	}
}
