package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/stack"
)

// problemBody is the RFC 9457 body every error carries.
type problemBody struct {
	Status    int    `json:"status"`
	Title     string `json:"title"`
	RequestID string `json:"request_id"`
}

func TestRequestsWithoutAValidTokenAreUnauthorized(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	hc := audited(t, s)
	url := s.JobsBaseURL() + client.EscolaridadesPath
	tests := []struct {
		name      string
		header    map[string]string
		challenge string
	}{
		{"no Authorization header gets a bare Bearer challenge", nil, "Bearer"},
		{"a token that is not a JWT is an invalid token", map[string]string{"Authorization": "Bearer not-a-jwt"}, `error="invalid_token"`},
		{"Basic credentials are not a bearer token", map[string]string{"Authorization": "Basic YWRtaW46YWRtaW4="}, "Bearer"},
		{"forged identity headers without a token change nothing", map[string]string{"X-Client-Id": stack.JobsAdmin, "X-Department": "trabalho"}, "Bearer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := raw(t, hc, http.MethodGet, url, tt.header)
			var p problemBody
			_ = json.Unmarshal(body, &p)
			if resp.StatusCode != http.StatusUnauthorized || p.Status != http.StatusUnauthorized || p.RequestID == "" {
				t.Errorf("answer = %d %s, want a 401 problem with a request_id", resp.StatusCode, body)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
				t.Errorf("Content-Type = %q, want application/problem+json", ct)
			}
			if ch := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(ch, "Bearer") || !strings.Contains(ch, tt.challenge) {
				t.Errorf("WWW-Authenticate = %q, want one containing %s", ch, tt.challenge)
			}
		})
	}
	t.Run("a real token from another identity provider is refused after one renewal", func(t *testing.T) {
		t.Parallel()
		stranger := devidptest.Start(t)
		c := newClient(t, s, stack.JobsAdmin, func(cfg *client.Config) { cfg.TokenURL = stranger.TokenURL() })
		_, err := c.ListEscolaridades(context.Background(), client.ListOptions{})
		var e *client.Error
		if !errors.As(err, &e) || e.Status != http.StatusUnauthorized || e.Attempts != 2 {
			t.Errorf("err = %v, want a 401 after two attempts (one with a renewed token)", err)
		}
	})
}

func TestTokensWithoutTheScopeAreForbidden(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	tests := []struct {
		name         string
		clientID     string
		method, area string
		path         string
		body         any
		scope        string
	}{
		{"reader cannot create an escolaridade", stack.Reader, http.MethodPost, client.AreaJobs, client.EscolaridadesPath, &client.Escolaridade{Nivel: "x"}, "jobs:write"},
		{"reader cannot update an escolaridade", stack.Reader, http.MethodPut, client.AreaJobs, client.EscolaridadesPath + "/1", &client.Escolaridade{Nivel: "x"}, "jobs:write"},
		{"reader cannot create a servico", stack.Reader, http.MethodPost, client.AreaSearch, client.ServicesPath, map[string]any{"nome_servico": "x"}, "search:services:write"},
		{"jobs-admin cannot read the search schemas", stack.JobsAdmin, http.MethodGet, client.AreaSearch, client.MigrationSchemasPath, nil, "search:migrations:read"},
		{"catalog-admin cannot create a categoria", stack.CatalogAdmin, http.MethodPost, client.AreaJobs, client.CategoriasPath, &client.Categoria{Nome: "x"}, "jobs:write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, err := newClient(t, s, tt.clientID).Do(context.Background(), tt.method, tt.area, tt.path, tt.body, nil)
			var e *client.Error
			if !errors.As(err, &e) || e.Status != http.StatusForbidden || e.Attempts != 1 || e.RequestID == "" {
				t.Fatalf("err = %v, want one 403 with a request_id", err)
			}
			ch := resp.Header.Get("WWW-Authenticate")
			if !strings.Contains(ch, `error="insufficient_scope"`) || !strings.Contains(ch, `scope="`+tt.scope+`"`) {
				t.Errorf("WWW-Authenticate = %q, want insufficient_scope naming %s", ch, tt.scope)
			}
		})
	}
}

func TestUnknownResourcesAreNotFound(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	c := newClient(t, s, stack.JobsAdmin)
	body := &client.Escolaridade{Nivel: unique("Nenhum")}
	tests := []struct {
		name   string
		method string
		area   string
		path   string
		body   any
	}{
		{"PUT of escolaridade 999999", http.MethodPut, client.AreaJobs, client.EscolaridadesPath + "/999999", body},
		{"PUT of escolaridade abc", http.MethodPut, client.AreaJobs, client.EscolaridadesPath + "/abc", body},
		{"PUT of escolaridade -1", http.MethodPut, client.AreaJobs, client.EscolaridadesPath + "/-1", body},
		{"PUT of an id beyond 64 bits", http.MethodPut, client.AreaJobs, client.EscolaridadesPath + "/99999999999999999999999", body},
		{"GET of an unknown route", http.MethodGet, client.AreaJobs, "/api/v1/vagas", nil},
		{"GET of a servico that is not a UUID", http.MethodGet, client.AreaSearch, client.ServicesPath + "/%C3%A7", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cc := c
			if tt.area == client.AreaSearch {
				cc = newClient(t, s, stack.CatalogAdmin)
			}
			_, err := cc.Do(context.Background(), tt.method, tt.area, tt.path, tt.body, nil)
			if !client.IsNotFound(err) {
				t.Errorf("err = %v, want a 404", err)
			}
		})
	}
	page, err := c.ListEscolaridades(context.Background(), client.ListOptions{Filter: map[string][]string{"nivel": {body.Nivel}}})
	if err != nil || page.Meta.Total != 0 {
		t.Errorf("list by nivel = %+v, %v; a PUT to a missing id must not create one", page, err)
	}
}

func TestInvalidBodiesAreRefusedWithEveryViolation(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	jobs, catalog := newClient(t, s, stack.JobsAdmin), newClient(t, s, stack.CatalogAdmin)
	tests := []struct {
		name       string
		c          *client.Client
		area, path string
		body       string
		status     int
		fields     []string
	}{
		{"a servico breaking every rule of table 2.7", catalog, client.AreaSearch, client.ServicesPath,
			`{"nome_servico": "` + strings.Repeat("ç", 256) + `", "orgao_gestor": [], "publico_especifico": [], "resumo": "` + strings.Repeat("é", 351) + `", "status": 2}`,
			http.StatusUnprocessableEntity, []string{"nome_servico", "orgao_gestor", "publico_especifico", "resumo", "status", "tema_geral"}},
		{"a servico trying to set its autor and a misspelt member", catalog, client.AreaSearch, client.ServicesPath,
			`{"nome_servico": "x", "orgao_gestor": ["a"], "publico_especifico": ["b"], "resumo": "r", "tema_geral": "t", "status": "1", "nome_sevico": "typo"}`,
			http.StatusUnprocessableEntity, []string{"status", "nome_sevico"}},
		{"an emprego with inverted salaries and a latitude off the globe", jobs, client.AreaJobs, client.EmpregosPath,
			`{"titulo": "Pedreiro", "tipo_contratacao": "CLT", "salario_min": 5000, "salario_max": 100, "latitude": 91}`,
			http.StatusUnprocessableEntity, []string{"salario_min", "latitude"}},
		{"an emprego pointing at an empresa and an escolaridade that do not exist", jobs, client.AreaJobs, client.EmpregosPath,
			`{"titulo": "Pedreiro", "tipo_contratacao": "CLT", "empresa_id": 999999, "escolaridade_id": 999998}`,
			http.StatusUnprocessableEntity, []string{"empresa_id", "escolaridade_id"}},
		{"an emprego without titulo and with an unknown enum value", jobs, client.AreaJobs, client.EmpregosPath,
			`{"tipo_contratacao": "FREELA"}`, http.StatusUnprocessableEntity, []string{"titulo", "tipo_contratacao"}},
		{"an escolaridade whose nivel is a number", jobs, client.AreaJobs, client.EscolaridadesPath,
			`{"nivel": 5}`, http.StatusUnprocessableEntity, []string{"nivel"}},
		{"a categoria with a blank nome", jobs, client.AreaJobs, client.CategoriasPath,
			`{"nome": "   "}`, http.StatusUnprocessableEntity, []string{"nome"}},
		{"a body that is not JSON", jobs, client.AreaJobs, client.CategoriasPath,
			`{"nome": `, http.StatusBadRequest, nil},
		{"a body over the 1 MiB limit", jobs, client.AreaJobs, client.CategoriasPath,
			`{"nome": "` + strings.Repeat("a", 1<<20) + `"}`, http.StatusRequestEntityTooLarge, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := tt.c.Do(context.Background(), http.MethodPost, tt.area, tt.path, json.RawMessage(tt.body), nil)
			var e *client.Error
			if !errors.As(err, &e) || e.Status != tt.status {
				t.Fatalf("err = %v, want a %d", err, tt.status)
			}
			var fields []string
			for _, f := range e.Errors {
				if f.Code == "" || f.Message == "" {
					t.Errorf("violation %+v lacks a code or message", f)
				}
				fields = append(fields, f.Field)
			}
			for _, f := range tt.fields {
				if !slices.Contains(fields, f) {
					t.Errorf("violations %v do not name %s", fields, f)
				}
			}
		})
	}
}

func TestAnInvalidUpdateLeavesTheEscolaridadeAsItWas(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	c := newClient(t, s, stack.JobsAdmin)
	ctx := context.Background()
	esc, err := c.CreateEscolaridade(ctx, &client.Escolaridade{Nivel: unique("Técnico")})
	if err != nil {
		t.Fatalf("CreateEscolaridade: %v", err)
	}
	path := client.EscolaridadesPath + "/" + strconv.FormatInt(esc.ID, 10)
	for _, body := range []string{`{"nivel": ""}`, `{"nivel": "x", "extra": true}`, `{"nivel": "` + strings.Repeat("ü", 256) + `"}`, `[]`} {
		if _, err := c.Do(ctx, http.MethodPut, client.AreaJobs, path, json.RawMessage(body), nil); !client.IsInvalid(err) && client.StatusOf(err) != http.StatusBadRequest {
			t.Errorf("PUT %.40s: err = %v, want a 422 or 400", body, err)
		}
	}
	var got client.Escolaridade
	if _, err := c.Do(ctx, http.MethodGet, client.AreaJobs, path, nil, &got); err != nil || got.Nivel != esc.Nivel {
		t.Errorf("after the refused updates: %+v, %v; want nivel %q unchanged", got, err, esc.Nivel)
	}
}
