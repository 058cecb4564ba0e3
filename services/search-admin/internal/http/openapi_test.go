package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	apihttp "github.com/municipal-apis/platform/services/search-admin/internal/http"
)

// openAPIRouter loads and validates the served OpenAPI document.
func openAPIRouter(t *testing.T, app *testApp) routers.Router {
	t.Helper()
	resp := app.do(http.MethodGet, "/openapi.json", "", nil)
	if resp.Status != http.StatusOK || !bytes.Equal(resp.Body, apihttp.OpenAPI) {
		t.Fatalf("GET /openapi.json without a token: status %d", resp.Status)
	}
	doc, err := openapi3.NewLoader().LoadFromData(resp.Body)
	if err != nil {
		t.Fatalf("load OpenAPI: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the OpenAPI document is invalid: %v", err)
	}
	doc.Servers = nil // match paths whatever host the test request names
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return router
}

func TestResponsesMatchTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	router := openAPIRouter(t, app)
	full := with(map[string]any{
		"custo_servico": "Gratuito", "agents": map[string]any{"exclusive_for_agents": false, "tool_hint": "iptu"},
		"awaiting_approval": true, "canais_digitais": []string{"app"}, "canais_presenciais": []string{"posto"},
		"documentos_necessarios": []string{"CPF"}, "legislacao_relacionada": []string{"Lei 1"},
		"extra_fields": map[string]any{"k": []any{1, "v"}}, "fixar_destaque": true, "instrucoes_solicitante": "Leve o CPF",
		"is_free": true, "servico_nao_cobre": "Isenção", "published_at": 1700000000, "status": 1,
	})
	id := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", full).servico(t, http.StatusCreated).ID
	item := "/api/v1/admin/services/" + id
	rule := synonymsPath + "/" + app.do(http.MethodPost, synonymsPath, "catalog-admin", map[string]any{"synonyms": []string{"iptu", "imposto predial"}}).synonym(t, http.StatusCreated).ID
	tests := []struct {
		name, method, path, client string
		body                       any
		want                       int
	}{
		{"create with every member", http.MethodPost, "/api/v1/admin/services", "catalog-admin", full, 201},
		{"create with the minimum", http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico(), 201},
		{"create with violations", http.MethodPost, "/api/v1/admin/services", "catalog-admin", map[string]any{"status": 3}, 422},
		{"create with malformed JSON", http.MethodPost, "/api/v1/admin/services", "catalog-admin", "{", 400},
		{"create without a token", http.MethodPost, "/api/v1/admin/services", "", validServico(), 401},
		{"create without the scope", http.MethodPost, "/api/v1/admin/services", "reader", validServico(), 403},
		{"list", http.MethodGet, "/api/v1/admin/services?per_page=5", "reader", nil, 200},
		{"list with a bad filter", http.MethodGet, "/api/v1/admin/services?status=9", "reader", nil, 422},
		{"read one", http.MethodGet, item, "reader", nil, 200},
		{"read an unknown id", http.MethodGet, "/api/v1/admin/services/nope", "reader", nil, 404},
		{"replace", http.MethodPut, item, "catalog-admin", full, 200},
		{"unpublish", http.MethodPost, item + "/unpublish", "catalog-admin", nil, 200},
		{"publish", http.MethodPost, item + "/publish", "catalog-admin", nil, 200},
		{"schemas", http.MethodGet, "/api/v1/admin/migration/schemas", "reader", nil, 200},
		{"search", http.MethodGet, "/api/v1/search?q=iptu&mode=hybrid&include_agent_only=true", "reader", nil, 200},
		{"keyword search with filters", http.MethodGet, "/api/v1/search?q=iptu&mode=keyword&tema_geral=Tributos&per_page=5", "reader", nil, 200},
		{"search with bad parameters", http.MethodGet, "/api/v1/search?mode=x", "reader", nil, 422},
		{"search where a synonym rule fires", http.MethodGet, "/api/v1/search?q=imposto+predial&mode=keyword", "reader", nil, 200},
		{"create a one-way synonym rule", http.MethodPost, synonymsPath, "catalog-admin", map[string]any{"root": "carnê", "synonyms": []string{"guia"}}, 201},
		{"create a synonym rule with violations", http.MethodPost, synonymsPath, "catalog-admin", map[string]any{"synonyms": []string{"x"}}, 422},
		{"create a synonym rule without the scope", http.MethodPost, synonymsPath, "reader", map[string]any{"synonyms": []string{"a", "b"}}, 403},
		{"list synonym rules", http.MethodGet, synonymsPath + "?per_page=3&text=iptu", "reader", nil, 200},
		{"list synonym rules with a bad filter", http.MethodGet, synonymsPath + "?root=x", "reader", nil, 422},
		{"read a synonym rule", http.MethodGet, rule, "reader", nil, 200},
		{"read an unknown synonym rule", http.MethodGet, synonymsPath + "/nope", "reader", nil, 404},
		{"replace a synonym rule", http.MethodPut, rule, "catalog-admin", map[string]any{"root": "imposto predial", "synonyms": []string{"iptu"}}, 200},
		{"delete a synonym rule", http.MethodDelete, rule, "catalog-admin", nil, 204},
		{"search without the scope", http.MethodGet, "/api/v1/search?q=iptu", "jobs-admin", nil, 403},
		{"migration status before any migration", http.MethodGet, "/api/v1/admin/migration/status", "reader", nil, 200},
		{"migration dry run", http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", map[string]any{"schema_version": "v1", "dry_run": true}, 200},
		{"migration to an unknown version", http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", map[string]any{"schema_version": "v9"}, 422},
		{"migration to the current version", http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", map[string]any{"schema_version": "v3"}, 409},
		{"migration start", http.MethodPost, "/api/v1/admin/migration/start", "catalog-admin", map[string]any{"schema_version": "v1"}, 202},
		{"migration status", http.MethodGet, "/api/v1/admin/migration/status", "reader", nil, 200},
		{"migration start by the read-only client", http.MethodPost, "/api/v1/admin/migration/start", "reader", map[string]any{"schema_version": "v1"}, 403},
		{"rollback", http.MethodPost, "/api/v1/admin/migration/rollback", "catalog-admin", nil, 200},
		{"rollback with nothing to roll back", http.MethodPost, "/api/v1/admin/migration/rollback", "catalog-admin", nil, 409},
		{"migration history", http.MethodGet, "/api/v1/admin/migration/history?per_page=2", "reader", nil, 200},
		{"delete", http.MethodDelete, item, "catalog-admin", nil, 204},
	}
	for _, tt := range tests {
		t.Run(tt.name+" answers as documented", func(t *testing.T) {
			resp := app.do(tt.method, tt.path, tt.client, tt.body)
			if resp.Status != tt.want {
				t.Fatalf("status %d, want %d; body %s", resp.Status, tt.want, resp.Body)
			}
			req := newRequest(tt.method, tt.path, "")
			route, params, err := router.FindRoute(req)
			if err != nil {
				t.Fatalf("the document has no route for %s %s: %v", tt.method, tt.path, err)
			}
			in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route}
			err = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
				RequestValidationInput: in, Status: resp.Status, Header: resp.Header,
				Body: io.NopCloser(bytes.NewReader(resp.Body)), Options: &openapi3filter.Options{IncludeResponseStatus: true},
			})
			if err != nil {
				t.Errorf("response does not match the document: %v", err)
			}
			if tt.want < 300 && tt.body != nil {
				validateRequest(t, route, params, tt.method, tt.path, tt.body)
			}
		})
	}
}

// validateRequest checks that a body the service accepted is valid per the document.
func validateRequest(t *testing.T, route *routers.Route, params map[string]string, method, path string, body any) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req := newRequest(method, path, string(raw))
	req.Header.Set("Content-Type", "application/json")
	err := openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	})
	if err != nil {
		t.Errorf("an accepted request does not match the document: %v", err)
	}
}

// TestTheDocumentSaysWhatACallerMeets checks what the response tests cannot
// reach: the gateway prefix of the servers, every scope of the service in
// the security scheme, and the answers of the idempotent POSTs and of a
// database outage.
func TestTheDocumentSaysWhatACallerMeets(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(apihttp.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the first server is the gateway's /search prefix", func(t *testing.T) {
		if len(doc.Servers) == 0 || !strings.HasSuffix(doc.Servers[0].URL, ":8080/search") {
			t.Errorf("servers %v, want the gateway's /search first", doc.Servers)
		}
	})
	scopes := []string{apihttp.ScopeServicesRead, apihttp.ScopeServicesWrite, apihttp.ScopeMigrationsRead, apihttp.ScopeMigrationsWrite, apihttp.ScopeSearch}
	t.Run("the security scheme names every scope", func(t *testing.T) {
		desc := doc.Components.SecuritySchemes["bearer"].Value.Description
		for _, s := range scopes {
			if !strings.Contains(desc, s) {
				t.Errorf("the bearer scheme does not name %s: %q", s, desc)
			}
		}
	})
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			t.Run(method+" "+path+" declares its scope, 503 and, when idempotent, 409", func(t *testing.T) {
				if op.Security == nil || len(*op.Security) != 1 {
					t.Fatalf("security %v, want one requirement", op.Security)
				}
				for _, need := range (*op.Security)[0] {
					for _, s := range need {
						if !slices.Contains(scopes, s) {
							t.Errorf("scope %s is not a scope of the service", s)
						}
					}
				}
				if op.Responses.Status(http.StatusServiceUnavailable) == nil {
					t.Error("no 503")
				}
				if op.Parameters.GetByInAndName("header", "Idempotency-Key") != nil && op.Responses.Status(http.StatusConflict) == nil {
					t.Error("accepts an Idempotency-Key but declares no 409")
				}
			})
		}
	}
}
