package client_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

func TestTypedMethodsReachTheirRoutes(t *testing.T) {
	t.Parallel()
	date := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	servico := map[string]any{"id": "0190f", "nome_servico": "IPTU", "orgao_gestor": []any{"SMF"}, "publico_especifico": []any{"todos"},
		"resumo": "Imposto", "tema_geral": "Tributos", "autor": "catalog-admin", "status": 1, "extra_fields": map[string]any{"ç": "ã"}}
	page := func(item map[string]any) map[string]any {
		return map[string]any{"data": []any{item}, "meta": map[string]any{"page": 2, "per_page": 5, "total": 6}}
	}
	synonym := map[string]any{"id": "0190s", "root": "poste", "synonyms": []any{"iluminação pública"}, "autor": "catalog-admin", "created_at": 1, "last_update": 2}
	emprego := map[string]any{"id": 9, "titulo": "Pedreiro", "tipo_contratacao": "CLT", "status": "CRIADO", "data_inicio_prevista": date.Format(time.RFC3339)}
	lo := client.ListOptions{Page: 2, PerPage: 5, Filter: map[string][]string{"status": {"1"}}}
	tests := []struct {
		name         string
		call         func(context.Context, *client.Client) (any, error)
		reply        any
		method, path string
		query, body  string
		want         any
	}{
		{"SchemaVersions reads the migration schemas",
			func(ctx context.Context, c *client.Client) (any, error) { return c.SchemaVersions(ctx) },
			map[string]any{"current_version": "v2", "available_versions": []any{"v1", "v2"}, "schemas": []any{map[string]any{"version": "v1", "dimensions": 256, "fields": []any{map[string]any{"name": "resumo", "weight": "B"}}}}},
			"GET", "/search/api/v1/admin/migration/schemas", "", "",
			&client.SchemaReport{CurrentVersion: "v2", AvailableVersions: []string{"v1", "v2"}, Schemas: []client.SchemaInfo{{Version: "v1", Dimensions: 256, Fields: []client.SchemaField{{Name: "resumo", Weight: "B"}}}}}},
		{"MigrationStatus reads the migration status",
			func(ctx context.Context, c *client.Client) (any, error) { return c.MigrationStatus(ctx) },
			map[string]any{"state": "idle", "current_version": "v2"},
			"GET", "/search/api/v1/admin/migration/status", "", "",
			client.MigrationStatus{"state": "idle", "current_version": "v2"}},
		{"CreateServico posts only the members it has",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.CreateServico(ctx, &client.Servico{NomeServico: "IPTU", OrgaoGestor: []string{"SMF"}, PublicoEspecifico: []string{"todos"},
					Resumo: "Imposto", TemaGeral: "Tributos", Status: client.Ptr(client.ServicoPublished), ExtraFields: map[string]any{"ç": "ã"}})
			},
			servico, "POST", "/search/api/v1/admin/services", "",
			`{"nome_servico":"IPTU","orgao_gestor":["SMF"],"publico_especifico":["todos"],"resumo":"Imposto","tema_geral":"Tributos","extra_fields":{"ç":"ã"},"status":1}`,
			&client.Servico{ID: "0190f", NomeServico: "IPTU", OrgaoGestor: []string{"SMF"}, PublicoEspecifico: []string{"todos"}, Resumo: "Imposto",
				TemaGeral: "Tributos", Autor: "catalog-admin", Status: client.Ptr(1), ExtraFields: map[string]any{"ç": "ã"}}},
		{"GetServico escapes the id into one segment",
			func(ctx context.Context, c *client.Client) (any, error) { return c.GetServico(ctx, "a/b ç") },
			servico, "GET", "/search/api/v1/admin/services/a%2Fb%20%C3%A7", "", "", nil},
		{"ListServicos sends paging and filters",
			func(ctx context.Context, c *client.Client) (any, error) { return c.ListServicos(ctx, lo) },
			page(servico), "GET", "/search/api/v1/admin/services", "page=2&per_page=5&status=1", "", nil},
		{"UpdateServico puts the whole entry",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.UpdateServico(ctx, "0190f", &client.Servico{NomeServico: "IPTU 2025", OrgaoGestor: []string{"SMF"}, PublicoEspecifico: []string{"todos"}, Resumo: "r", TemaGeral: "t"})
			},
			servico, "PUT", "/search/api/v1/admin/services/0190f", "",
			`{"nome_servico":"IPTU 2025","orgao_gestor":["SMF"],"publico_especifico":["todos"],"resumo":"r","tema_geral":"t"}`, nil},
		{"DeleteServico deletes",
			func(ctx context.Context, c *client.Client) (any, error) { return nil, c.DeleteServico(ctx, "0190f") },
			nil, "DELETE", "/search/api/v1/admin/services/0190f", "", "", nil},
		{"CreateSynonym posts a one-way rule",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.CreateSynonym(ctx, &client.Synonym{Root: "poste", Synonyms: []string{"iluminação pública"}})
			},
			synonym, "POST", "/search/api/v1/admin/synonyms", "", `{"root":"poste","synonyms":["iluminação pública"]}`,
			&client.Synonym{ID: "0190s", Root: "poste", Synonyms: []string{"iluminação pública"}, Autor: "catalog-admin", CreatedAt: 1, LastUpdate: 2}},
		{"GetSynonym escapes the id into one segment",
			func(ctx context.Context, c *client.Client) (any, error) { return c.GetSynonym(ctx, "a/b") },
			synonym, "GET", "/search/api/v1/admin/synonyms/a%2Fb", "", "", nil},
		{"ListSynonyms sends paging and filters",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.ListSynonyms(ctx, client.ListOptions{Page: 2, PerPage: 5, Filter: map[string][]string{"text": {"lixo"}}})
			},
			page(synonym), "GET", "/search/api/v1/admin/synonyms", "page=2&per_page=5&text=lixo", "", nil},
		{"UpdateSynonym puts a multi-way rule",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.UpdateSynonym(ctx, "0190s", &client.Synonym{Synonyms: []string{"lixo", "resíduo"}})
			},
			synonym, "PUT", "/search/api/v1/admin/synonyms/0190s", "", `{"synonyms":["lixo","resíduo"]}`, nil},
		{"DeleteSynonym deletes",
			func(ctx context.Context, c *client.Client) (any, error) { return nil, c.DeleteSynonym(ctx, "0190s") },
			nil, "DELETE", "/search/api/v1/admin/synonyms/0190s", "", "", nil},
		{"CreateEmprego posts RFC 3339 dates",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.CreateEmprego(ctx, &client.Emprego{Titulo: "Pedreiro", TipoContratacao: "CLT", DataInicioPrevista: &date, EmpresaID: client.Ptr[int64](4)})
			},
			emprego, "POST", "/go/v1/api/v1/empregos", "",
			`{"titulo":"Pedreiro","data_inicio_prevista":"2025-03-01T00:00:00Z","empresa_id":4,"tipo_contratacao":"CLT"}`,
			&client.Emprego{ID: 9, Titulo: "Pedreiro", TipoContratacao: "CLT", Status: "CRIADO", DataInicioPrevista: &date}},
		{"GetEmprego reads one posting",
			func(ctx context.Context, c *client.Client) (any, error) { return c.GetEmprego(ctx, 9) },
			emprego, "GET", "/go/v1/api/v1/empregos/9", "", "", nil},
		{"ListEmpregos sends paging and filters",
			func(ctx context.Context, c *client.Client) (any, error) { return c.ListEmpregos(ctx, lo) },
			page(emprego), "GET", "/go/v1/api/v1/empregos", "page=2&per_page=5&status=1", "", nil},
		{"UpdateEmprego puts the posting",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.UpdateEmprego(ctx, 9, &client.Emprego{Titulo: "Pedreiro", TipoContratacao: "PJ"})
			},
			emprego, "PUT", "/go/v1/api/v1/empregos/9", "", `{"titulo":"Pedreiro","tipo_contratacao":"PJ"}`, nil},
		{"SetEmpregoStatus patches the status",
			func(ctx context.Context, c *client.Client) (any, error) { return c.SetEmpregoStatus(ctx, 9, "ABERTO") },
			emprego, "PATCH", "/go/v1/api/v1/empregos/9/status", "", `{"status":"ABERTO"}`, nil},
		{"CreateEscolaridade posts the level",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.CreateEscolaridade(ctx, &client.Escolaridade{Nivel: "Médio"})
			},
			map[string]any{"id": 2, "nivel": "Médio"}, "POST", "/go/v1/api/v1/escolaridades", "", `{"nivel":"Médio"}`,
			&client.Escolaridade{ID: 2, Nivel: "Médio"}},
		{"UpdateEscolaridade puts the level",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.UpdateEscolaridade(ctx, 2, &client.Escolaridade{Nivel: "Superior"})
			},
			map[string]any{"id": 2, "nivel": "Superior"}, "PUT", "/go/v1/api/v1/escolaridades/2", "", `{"nivel":"Superior"}`, nil},
		{"ListEscolaridades lists levels",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.ListEscolaridades(ctx, client.ListOptions{})
			},
			page(map[string]any{"id": 2, "nivel": "Médio"}), "GET", "/go/v1/api/v1/escolaridades", "", "",
			&client.Page[client.Escolaridade]{Data: []client.Escolaridade{{ID: 2, Nivel: "Médio"}}, Meta: client.ListMeta{Page: 2, PerPage: 5, Total: 6}}},
		{"CreateCategoria posts the category",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.CreateCategoria(ctx, &client.Categoria{Nome: "Tecnologia"})
			},
			map[string]any{"id": 3, "nome": "Tecnologia"}, "POST", "/go/v1/api/v1/categorias", "", `{"nome":"Tecnologia"}`, nil},
		{"ListCategorias lists categories",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.ListCategorias(ctx, client.ListOptions{Filter: map[string][]string{"nome": {"Tec"}}})
			},
			page(map[string]any{"id": 3, "nome": "Tecnologia"}), "GET", "/go/v1/api/v1/categorias", "nome=Tec", "", nil},
		{"CreateEmpresa posts the company",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.CreateEmpresa(ctx, &client.Empresa{Nome: "ACME"})
			},
			map[string]any{"id": 4, "nome": "ACME"}, "POST", "/go/v1/api/v1/empresas", "", `{"nome":"ACME"}`, nil},
		{"CreateOrgao posts the public body",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.CreateOrgao(ctx, &client.Orgao{Nome: "SMF"})
			},
			map[string]any{"id": 5, "nome": "SMF"}, "POST", "/go/v1/api/v1/orgaos", "", `{"nome":"SMF"}`, nil},
		{"CreateCurso posts the course with its categories",
			func(ctx context.Context, c *client.Client) (any, error) {
				return c.CreateCurso(ctx, &client.Curso{Title: "Go", Modalidade: "Remoto", CategoriaIDs: []int64{3}, HasCertificate: client.Ptr(false)})
			},
			map[string]any{"id": 6, "title": "Go", "modalidade": "Remoto", "categorias": []any{map[string]any{"id": 3, "nome": "Tecnologia"}}},
			"POST", "/go/v1/api/v1/cursos", "", `{"title":"Go","has_certificate":false,"modalidade":"Remoto","categoria_ids":[3]}`,
			&client.Curso{ID: 6, Title: "Go", Modalidade: "Remoto", Categorias: []client.Categoria{{ID: 3, Nome: "Tecnologia"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status := http.StatusOK
			switch tt.method {
			case http.MethodPost:
				status = http.StatusCreated
			case http.MethodDelete:
				status = http.StatusNoContent
			}
			s := newScript(ok(status, tt.reply))
			a := newAPI(t, routeAll(s))
			clientID := devidptest.JobsAdmin
			if tt.path[1] == 's' {
				clientID = devidptest.CatalogAdmin
			}
			got, err := tt.call(context.Background(), mustClient(t, a.config(t, clientID)))
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			reqs := s.requests()
			if len(reqs) != 1 {
				t.Fatalf("requests = %d, want 1", len(reqs))
			}
			r := reqs[0]
			if r.method != tt.method || r.path != tt.path || r.query != tt.query {
				t.Errorf("request = %s %s ?%s, want %s %s ?%s", r.method, r.path, r.query, tt.method, tt.path, tt.query)
			}
			if string(r.body) != tt.body {
				t.Errorf("body = %s\nwant   %s", r.body, tt.body)
			}
			if tt.want != nil && !reflect.DeepEqual(got, tt.want) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(tt.want)
				t.Errorf("decoded = %s\nwant      %s", gj, wj)
			}
		})
	}
}
