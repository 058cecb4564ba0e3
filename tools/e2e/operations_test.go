package e2e_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/stack"
)

// Gateway prefixes of the two areas (docs/decisions.md#ports-and-routes).
const (
	searchPrefix = "/search"
	jobsPrefix   = "/go/v1"
)

// created POSTs in with c to path of area and decodes the answer into out,
// failing t unless the answer is a 201 that was not a replay.
func created(t *testing.T, c *client.Client, area, path string, in, out any) *client.Response {
	t.Helper()
	resp, err := c.Do(context.Background(), http.MethodPost, area, path, in, out)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusCreated || resp.Replayed {
		t.Fatalf("POST %s = %d (replayed %v), want a fresh 201 Created", path, resp.StatusCode, resp.Replayed)
	}
	return resp
}

// wantLocation fails t unless resp's Location is the gateway path of the
// resource (prefix + resource) and leads, through the gateway, to it.
func wantLocation(t *testing.T, s *stack.Stack, c *client.Client, resp *client.Response, prefix, resource string) {
	t.Helper()
	loc := resp.Header.Get("Location")
	if loc != prefix+resource {
		t.Errorf("Location = %q, want %q", loc, prefix+resource)
		return
	}
	r, _ := raw(t, audited(t, s), http.MethodGet, s.GatewayURL+loc, bearer(t, c))
	if r.StatusCode != http.StatusOK {
		t.Errorf("GET the Location %s through the gateway = %d, want 200", loc, r.StatusCode)
	}
}

func TestOperation1ListsTheSearchSchemaVersions(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	for _, who := range []string{stack.CatalogAdmin, stack.Reader} {
		t.Run(who+" reads the versions, the current one included", func(t *testing.T) {
			t.Parallel()
			var got client.SchemaReport
			resp, err := newClient(t, s, who).Do(context.Background(), http.MethodGet, client.AreaSearch, client.MigrationSchemasPath, nil, &got)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("GET schemas = %v, %v; want 200", resp, err)
			}
			versions := make([]string, len(got.Schemas))
			for i, sc := range got.Schemas {
				versions[i] = sc.Version
				if sc.Dimensions <= 0 || len(sc.Fields) == 0 || sc.EmbeddingModel == "" {
					t.Errorf("schema %s = %+v, want dimensions, fields and a model", sc.Version, sc)
				}
			}
			if !slices.Equal(got.AvailableVersions, []string{"v1", "v2", "v3"}) || !slices.Equal(versions, got.AvailableVersions) || got.CurrentVersion != "v3" {
				t.Errorf("report = %+v, want v1, v2 and v3 in order with v3 current", got)
			}
			if !resp.RateLimit.Present || resp.RateLimit.Remaining >= resp.RateLimit.Limit {
				t.Errorf("rate limit = %+v, want a counted request", resp.RateLimit)
			}
		})
	}
}

func TestOperation2CreatesAServico(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	c := newClient(t, s, stack.CatalogAdmin)
	in := client.Servico{
		NomeServico: unique("Segunda via do IPTU — emissão ✓"), OrgaoGestor: []string{"Secretaria de Fazenda"},
		PublicoEspecifico: []string{"Proprietários de imóveis"}, Resumo: "Emita a segunda via do carnê do IPTU.",
		TemaGeral: "Tributos", CustoServico: "Gratuito", CanaisDigitais: []string{"https://iptu.example"},
		Agents: &client.Agents{ToolHint: "iptu"}, ExtraFields: map[string]any{"código": "A-1"},
		IsFree: client.Ptr(true), Status: client.Ptr(client.ServicoPublished),
	}
	start := time.Now().Add(-time.Minute).Unix()
	var out client.Servico
	resp := created(t, c, client.AreaSearch, client.ServicesPath, &in, &out)

	id, err := uuid.Parse(out.ID)
	if err != nil || id.Version() != 7 {
		t.Errorf("id = %q, want a UUID v7", out.ID)
	}
	if out.NomeServico != in.NomeServico || out.Resumo != in.Resumo || !slices.Equal(out.OrgaoGestor, in.OrgaoGestor) || out.ExtraFields["código"] != "A-1" {
		t.Errorf("created = %+v, want the members sent", out)
	}
	if out.Autor != "service-account-"+stack.CatalogAdmin {
		t.Errorf("autor = %q, want the caller's service account", out.Autor)
	}
	if out.CreatedAt < start || out.LastUpdate < out.CreatedAt || out.PublishedAt == nil || *out.PublishedAt < start {
		t.Errorf("timestamps created %d, updated %d, published %v; want Unix seconds of now", out.CreatedAt, out.LastUpdate, out.PublishedAt)
	}
	if !strings.Contains(out.SearchContent, "iptu") || len(out.Embedding) == 0 {
		t.Errorf("search_content %q and %d embedding values, want both built", out.SearchContent, len(out.Embedding))
	}
	wantLocation(t, s, c, resp, searchPrefix, client.ServicesPath+"/"+out.ID)

	got, err := c.GetServico(context.Background(), out.ID)
	if err != nil || got.NomeServico != in.NomeServico || got.Autor != out.Autor {
		t.Errorf("GetServico = %+v, %v; want what was created", got, err)
	}
}

func TestOperation3CreatesAnEmpregoWithItsRelations(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	c := newClient(t, s, stack.JobsAdmin)
	ctx := context.Background()
	empresa, err := c.CreateEmpresa(ctx, &client.Empresa{Nome: unique("Construtora Ávila")})
	if err != nil {
		t.Fatalf("CreateEmpresa: %v", err)
	}
	esc, err := c.CreateEscolaridade(ctx, &client.Escolaridade{Nivel: unique("Fundamental completo")})
	if err != nil {
		t.Fatalf("CreateEscolaridade: %v", err)
	}
	inicio := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	in := client.Emprego{
		Titulo: unique("Pedreiro"), Descricao: client.Ptr("Obras públicas"), NumeroVagas: client.Ptr(3),
		SalarioMin: client.Ptr(2000), SalarioMax: client.Ptr(3500), Latitude: client.Ptr(-22.9), Longitude: client.Ptr(-43.2),
		DataInicioPrevista: &inicio, EmpresaID: &empresa.ID, EscolaridadeID: &esc.ID,
		JornadaTrabalho: "INTEGRAL", TipoContratacao: "CLT", Turno: "MANHA",
	}
	var out client.Emprego
	resp := created(t, c, client.AreaJobs, client.EmpregosPath, &in, &out)

	if out.ID <= 0 || out.Titulo != in.Titulo || out.Status != "CRIADO" || *out.SalarioMax != 3500 || !out.DataInicioPrevista.Equal(inicio) {
		t.Errorf("created = %+v, want the members sent, status CRIADO", out)
	}
	if out.Empresa == nil || out.Empresa.Nome != empresa.Nome || out.Escolaridade == nil || out.Escolaridade.Nivel != esc.Nivel {
		t.Errorf("relations = %+v, %+v; want the empresa and escolaridade embedded", out.Empresa, out.Escolaridade)
	}
	wantLocation(t, s, c, resp, jobsPrefix, client.EmpregosPath+"/"+strconv.FormatInt(out.ID, 10))
}

func TestOperations4And5CreateAndUpdateAnEscolaridade(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	c := newClient(t, s, stack.JobsAdmin)
	ctx := context.Background()
	var esc client.Escolaridade
	resp := created(t, c, client.AreaJobs, client.EscolaridadesPath, &client.Escolaridade{Nivel: unique("Ensino médio")}, &esc)
	path := client.EscolaridadesPath + "/" + strconv.FormatInt(esc.ID, 10)
	wantLocation(t, s, c, resp, jobsPrefix, path)

	t.Run("a PUT answers 200 with the escolaridade as updated", func(t *testing.T) {
		nivel := unique("Ensino médio completo")
		var out client.Escolaridade
		resp, err := c.Do(ctx, http.MethodPut, client.AreaJobs, path, &client.Escolaridade{Nivel: nivel}, &out)
		if err != nil || resp.StatusCode != http.StatusOK || out.ID != esc.ID || out.Nivel != nivel {
			t.Fatalf("PUT = %v, %+v, %v; want 200 with nivel %q", resp, out, err, nivel)
		}
		var got client.Escolaridade
		if _, err := c.Do(ctx, http.MethodGet, client.AreaJobs, path, nil, &got); err != nil || got.Nivel != nivel {
			t.Errorf("GET after PUT = %+v, %v; want the new nivel", got, err)
		}
	})
	t.Run("a second escolaridade with the same nivel in other case is a conflict", func(t *testing.T) {
		var stored client.Escolaridade
		if _, err := c.Do(ctx, http.MethodGet, client.AreaJobs, path, nil, &stored); err != nil {
			t.Fatalf("GET: %v", err)
		}
		_, err := c.CreateEscolaridade(ctx, &client.Escolaridade{Nivel: strings.ToUpper(stored.Nivel)})
		if !client.IsConflict(err) {
			t.Errorf("duplicate create: err = %v, want a 409", err)
		}
	})
}

func TestOperation6CreatesACategoria(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	c := newClient(t, s, stack.JobsAdmin)
	nome := unique("Tecnologia da informação")
	var out client.Categoria
	resp := created(t, c, client.AreaJobs, client.CategoriasPath, &client.Categoria{Nome: nome}, &out)
	if out.ID <= 0 || out.Nome != nome {
		t.Errorf("created = %+v, want nome %q", out, nome)
	}
	wantLocation(t, s, c, resp, jobsPrefix, client.CategoriasPath+"/"+strconv.FormatInt(out.ID, 10))
	page, err := c.ListCategorias(context.Background(), client.ListOptions{Filter: map[string][]string{"nome": {nome}}})
	if err != nil || page.Meta.Total != 1 || page.Data[0].ID != out.ID {
		t.Errorf("list by nome = %+v, %v; want exactly the created categoria", page, err)
	}
}
