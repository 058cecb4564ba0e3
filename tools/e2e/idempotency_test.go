package e2e_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/stack"
)

func TestARepeatedIdempotencyKeyReplaysTheFirstAnswer(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	c := newClient(t, s, stack.JobsAdmin)
	ctx := context.Background()
	key := client.WithIdempotencyKey(uuid.NewString())
	nome := unique("Categoria idempotente")
	post := func(c *client.Client, body *client.Categoria) (*client.Response, *client.Categoria, error) {
		var out client.Categoria
		resp, err := c.Do(ctx, http.MethodPost, client.AreaJobs, client.CategoriasPath, body, &out, key)
		return resp, &out, err
	}

	r1, first, err := post(c, &client.Categoria{Nome: nome})
	if err != nil || r1.StatusCode != http.StatusCreated || r1.Replayed {
		t.Fatalf("first POST = %+v, %v; want a fresh 201", r1, err)
	}
	t.Run("the same key and body get the stored answer", func(t *testing.T) {
		r2, again, err := post(c, &client.Categoria{Nome: nome})
		if err != nil || r2.StatusCode != http.StatusCreated || !r2.Replayed || again.ID != first.ID {
			t.Errorf("replay = %+v, %+v, %v; want the first 201 with id %d, marked replayed", r2, again, err, first.ID)
		}
		if r2.Header.Get("Location") != r1.Header.Get("Location") {
			t.Errorf("replayed Location %q, want %q", r2.Header.Get("Location"), r1.Header.Get("Location"))
		}
	})
	t.Run("the same key with another body is refused", func(t *testing.T) {
		if _, _, err := post(c, &client.Categoria{Nome: nome + " outra"}); !client.IsInvalid(err) {
			t.Errorf("err = %v, want a 422", err)
		}
	})
	t.Run("another client's same key is its own request", func(t *testing.T) {
		resp, _, err := post(newClient(t, s, stack.OtherDept), &client.Categoria{Nome: nome})
		if !client.IsConflict(err) || (resp != nil && resp.Replayed) {
			t.Errorf("err = %v; want the duplicate nome's 409, not a replay of another client's answer", err)
		}
	})
	page, err := c.ListCategorias(ctx, client.ListOptions{Filter: map[string][]string{"nome": {nome}}})
	if err != nil || page.Meta.Total != 1 {
		t.Errorf("categorias named %q: %+v, %v; want exactly one", nome, page, err)
	}
}

func TestARetriedServicoCreateThroughTheGatewayStoresOneEntry(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	c := newClient(t, s, stack.CatalogAdmin)
	ctx := context.Background()
	key := client.WithIdempotencyKey(uuid.NewString())
	in := &client.Servico{
		NomeServico: unique("Poda de árvores"), OrgaoGestor: []string{"Secretaria de Meio Ambiente"},
		PublicoEspecifico: []string{"Moradores"}, Resumo: "Solicite a poda de árvores em via pública.", TemaGeral: "Meio ambiente",
	}
	var first, again client.Servico
	r1, err := c.Do(ctx, http.MethodPost, client.AreaSearch, client.ServicesPath, in, &first, key)
	if err != nil || r1.StatusCode != http.StatusCreated || r1.Replayed {
		t.Fatalf("first POST = %+v, %v; want a fresh 201", r1, err)
	}
	r2, err := c.Do(ctx, http.MethodPost, client.AreaSearch, client.ServicesPath, in, &again, key)
	if err != nil || r2.StatusCode != http.StatusCreated || !r2.Replayed || again.ID != first.ID {
		t.Fatalf("replay = %+v, id %q, %v; want the first 201 with id %q, marked replayed", r2, again.ID, err, first.ID)
	}
	if r2.Header.Get("Location") != r1.Header.Get("Location") {
		t.Errorf("replayed Location %q, want %q", r2.Header.Get("Location"), r1.Header.Get("Location"))
	}
	page, err := c.ListServicos(ctx, client.ListOptions{Filter: map[string][]string{"text": {in.NomeServico}}})
	if err != nil || page.Meta.Total != 1 {
		t.Errorf("servicos named %q: %+v, %v; want exactly one", in.NomeServico, page, err)
	}
}
