package http_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

type violation struct{ field, code string }

func TestCreateEnforcesTable27AtItsBoundaries(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	tests := []struct {
		name string
		body map[string]any
		want []violation // nil: 201
	}{
		{"a nome_servico of 255 'ç' is accepted", with(map[string]any{"nome_servico": strings.Repeat("ç", 255)}), nil},
		{"a nome_servico of 255 emoji is accepted", with(map[string]any{"nome_servico": strings.Repeat("🚌", 255)}), nil},
		{"a nome_servico of 256 'ç' is too long", with(map[string]any{"nome_servico": strings.Repeat("ç", 256)}), []violation{{"nome_servico", "max_length"}}},
		{"a nome_servico of 256 emoji is too long", with(map[string]any{"nome_servico": strings.Repeat("🚌", 256)}), []violation{{"nome_servico", "max_length"}}},
		{"a resumo of 350 'ã' is accepted", with(map[string]any{"resumo": strings.Repeat("ã", 350)}), nil},
		{"a resumo of 351 'ã' is too long", with(map[string]any{"resumo": strings.Repeat("ã", 351)}), []violation{{"resumo", "max_length"}}},
		{"an orgao_gestor of 100 items is accepted", with(map[string]any{"orgao_gestor": slices.Repeat([]string{"SMF"}, 100)}), nil},
		{"an orgao_gestor of 101 items is refused", with(map[string]any{"orgao_gestor": slices.Repeat([]string{"SMF"}, 101)}), []violation{{"orgao_gestor", "max_items"}}},
		{"a legislacao_relacionada of 101 items is refused", with(map[string]any{"legislacao_relacionada": slices.Repeat([]string{"Lei"}, 101)}), []violation{{"legislacao_relacionada", "max_items"}}},
		{"an empty orgao_gestor is refused", with(map[string]any{"orgao_gestor": []string{}}), []violation{{"orgao_gestor", "min_items"}}},
		{"an empty publico_especifico is refused", with(map[string]any{"publico_especifico": []string{}}), []violation{{"publico_especifico", "min_items"}}},
		{"an orgao_gestor of blank strings has no items", with(map[string]any{"orgao_gestor": []string{"", "  "}}), []violation{{"orgao_gestor", "min_items"}}},
		{"a publico_especifico of an empty string has no items", with(map[string]any{"publico_especifico": []string{""}}), []violation{{"publico_especifico", "min_items"}}},
		{"status 0 is accepted", with(map[string]any{"status": 0}), nil},
		{"status 1 is accepted", with(map[string]any{"status": 1}), nil},
		{"status -1 is out of range", with(map[string]any{"status": -1}), []violation{{"status", "out_of_range"}}},
		{"status 2 is out of range", with(map[string]any{"status": 2}), []violation{{"status", "out_of_range"}}},
		{"status \"1\" is the wrong type", with(map[string]any{"status": "1"}), []violation{{"status", "invalid_type"}}},
		{"status 1.5 is the wrong type", with(map[string]any{"status": 1.5}), []violation{{"status", "invalid_type"}}},
		{"a negative published_at is refused", with(map[string]any{"published_at": -5}), []violation{{"published_at", "out_of_range"}}},
		{"a published_at in milliseconds is refused", with(map[string]any{"published_at": 1700000000000}), []violation{{"published_at", "out_of_range"}}},
		{"an unknown member is refused", with(map[string]any{"nome": "typo"}), []violation{{"nome", "unknown_field"}}},
		{"an unknown member inside agents is refused", with(map[string]any{"agents": map[string]any{"hint": "x"}}), []violation{{"agents.hint", "unknown_field"}}},
		{"a null required member is missing", with(map[string]any{"tema_geral": nil}), []violation{{"tema_geral", "required"}}},
		{"a blank required string is missing", with(map[string]any{"resumo": "   "}), []violation{{"resumo", "required"}}},
		{"a NUL character is refused", with(map[string]any{"nome_servico": "a\u0000b"}), []violation{{"nome_servico", "invalid_value"}}},
		{"a NUL character deep in extra_fields is refused", with(map[string]any{"extra_fields": map[string]any{"a": []any{"x\u0000"}}}), []violation{{"extra_fields", "invalid_value"}}},
		{"every missing required member is reported at once", map[string]any{}, []violation{
			{"nome_servico", "required"}, {"orgao_gestor", "required"}, {"publico_especifico", "required"}, {"resumo", "required"}, {"tema_geral", "required"}}},
		{"every optional member with its type is accepted", with(map[string]any{
			"custo_servico": "Gratuito", "descricao_completa": "Descrição", "resultado_solicitacao": "Guia", "tempo_atendimento": "Imediato",
			"agents": map[string]any{"exclusive_for_agents": true, "tool_hint": "iptu"}, "awaiting_approval": false,
			"canais_digitais": []string{"https://carioca.rio"}, "canais_presenciais": []string{"Rua Afonso Cavalcanti, 455"},
			"documentos_necessarios": []string{"CPF"}, "legislacao_relacionada": []string{"Lei 691/1984"},
			"extra_fields": map[string]any{"x": []any{1, "dois", nil, map[string]any{"y": true}}}, "fixar_destaque": true,
			"instrucoes_solicitante": "Tenha o número do imóvel", "is_free": true, "servico_nao_cobre": "Parcelamento",
			"published_at": 1700000000, "status": 1}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", tt.body)
			if tt.want == nil {
				resp.servico(t, http.StatusCreated)
				return
			}
			assertViolations(t, resp, tt.want)
		})
	}
}

func TestCreateRefusesTheWrongTypeForEveryMember(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	wrong := map[string]any{
		"nome_servico": 1, "orgao_gestor": "SMF", "publico_especifico": map[string]any{}, "resumo": true,
		"tema_geral": []string{"x"}, "custo_servico": 0, "descricao_completa": false, "resultado_solicitacao": 1.5,
		"tempo_atendimento": []int{1}, "agents": "x", "awaiting_approval": "true", "canais_digitais": "x",
		"canais_presenciais": 1, "documentos_necessarios": true, "legislacao_relacionada": map[string]any{},
		"extra_fields": []any{}, "fixar_destaque": 1, "instrucoes_solicitante": 2, "is_free": "no",
		"servico_nao_cobre": map[string]any{}, "published_at": "2024-01-01", "status": true,
	}
	for member, value := range wrong {
		t.Run(fmt.Sprintf("%s as %T is invalid_type", member, value), func(t *testing.T) {
			t.Parallel()
			resp := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", with(map[string]any{member: value}))
			assertViolations(t, resp, []violation{{member, "invalid_type"}})
		})
	}
	t.Run("wrong types inside agents are reported by path", func(t *testing.T) {
		t.Parallel()
		resp := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin",
			with(map[string]any{"agents": map[string]any{"exclusive_for_agents": "yes", "tool_hint": 3}}))
		assertViolations(t, resp, []violation{{"agents.exclusive_for_agents", "invalid_type"}, {"agents.tool_hint", "invalid_type"}})
	})
}

// assertViolations checks a 422 lists exactly want, in any order.
func assertViolations(t *testing.T, resp response, want []violation) {
	t.Helper()
	if resp.Status != http.StatusUnprocessableEntity {
		t.Fatalf("status = %d, want 422; body %s", resp.Status, resp.Body)
	}
	var got []violation
	for _, e := range resp.problem(t).Errors {
		got = append(got, violation{e.Field, e.Code})
	}
	sortViolations := func(v []violation) {
		slices.SortFunc(v, func(a, b violation) int { return strings.Compare(a.field+a.code, b.field+b.code) })
	}
	sortViolations(got)
	sortViolations(want)
	if !slices.Equal(got, want) {
		t.Errorf("violations = %v, want %v", got, want)
	}
}

func TestCreateRefusesBodiesThatAreNotAServico(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	tests := []struct {
		name        string
		contentType string
		body        string
		want        int
	}{
		{"a body that is not JSON is malformed", "application/json", `{"nome_servico":`, http.StatusBadRequest},
		{"a JSON array is malformed", "application/json", `[1,2]`, http.StatusBadRequest},
		{"an empty body is malformed", "application/json", ``, http.StatusBadRequest},
		{"a form body is an unsupported media type", "application/x-www-form-urlencoded", `nome_servico=x`, http.StatusUnsupportedMediaType},
		{"a body over 1 MiB is too large", "application/json", `{"resumo":"` + strings.Repeat("a", 1<<20) + `"}`, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := newRequest(http.MethodPost, "/api/v1/admin/services", tt.body)
			req.Header.Set("Content-Type", tt.contentType)
			req.Header.Set("Authorization", "Bearer "+app.token("catalog-admin"))
			resp := app.serve(req)
			if resp.Status != tt.want || resp.problem(t).Status != tt.want {
				t.Errorf("status = %d, want %d; body %s", resp.Status, tt.want, resp.Body)
			}
		})
	}
	var n int64
	app.db.Raw("SELECT count(*) FROM servicos").Scan(&n)
	if n != 0 {
		t.Errorf("%d servicos were stored from refused bodies", n)
	}
}

func TestCreateAnswersTheWholeServico(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	resp := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico())
	sv := resp.servico(t, http.StatusCreated)
	if loc := resp.Header.Get("Location"); loc != "/api/v1/admin/services/"+sv.ID {
		t.Errorf("Location = %q", loc)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(resp.Body, &raw); err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{"id", "autor", "created_at", "last_update", "custo_servico", "descricao_completa",
		"resultado_solicitacao", "tempo_atendimento", "search_content", "embedding", "status"} {
		if _, ok := raw[member]; !ok {
			t.Errorf("response lacks %q", member)
		}
	}
	if sv.Autor != adminAutor || sv.CreatedAt == 0 || sv.CreatedAt != sv.LastUpdate || sv.Status != catalog.StatusDraft {
		t.Errorf("server-set members wrong: autor %q created_at %d last_update %d status %d", sv.Autor, sv.CreatedAt, sv.LastUpdate, sv.Status)
	}
	if !strings.Contains(sv.SearchContent, "emissao de 2a via do iptu") || sv.SchemaVersion != "v3" {
		t.Errorf("search_content %q of version %q is not the folded v3 text", sv.SearchContent, sv.SchemaVersion)
	}
	if len(sv.Embedding) != catalog.SchemaV2.Dimensions || math.Abs(norm(sv.Embedding)-1) > 1e-5 || sv.EmbeddingStatus != catalog.EmbeddingReady {
		t.Errorf("embedding has %d dimensions, norm %f, status %q", len(sv.Embedding), norm(sv.Embedding), sv.EmbeddingStatus)
	}
	got := app.do(http.MethodGet, resp.Header.Get("Location"), "reader", nil).servico(t, http.StatusOK)
	if got.ID != sv.ID || got.SearchContent != sv.SearchContent || !slices.Equal(got.Embedding, sv.Embedding) {
		t.Errorf("read back differs from the create answer")
	}
}

func TestReadOnlyMembersSentByTheClientAreNeverStored(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	forged := with(map[string]any{
		"id": "00000000-0000-7000-8000-000000000001", "autor": "Prefeito", "created_at": 1, "last_update": 2,
		"embedding": []float64{1, 2, 3}, "search_content": "conteúdo forjado",
	})
	created := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", forged).servico(t, http.StatusCreated)
	replaced := app.do(http.MethodPut, "/api/v1/admin/services/"+created.ID, "catalog-admin", forged).servico(t, http.StatusOK)
	stored := app.do(http.MethodGet, "/api/v1/admin/services/"+created.ID, "catalog-admin", nil).servico(t, http.StatusOK)
	for name, sv := range map[string]catalog.Servico{"create": created, "replace": replaced, "stored": stored} {
		if sv.ID == forged["id"] || sv.Autor != adminAutor || sv.CreatedAt <= 2 || sv.LastUpdate <= 2 ||
			len(sv.Embedding) == 3 || strings.Contains(sv.SearchContent, "forjado") {
			t.Errorf("%s answer carries a client-sent read-only member: id %s autor %q created_at %d last_update %d embedding of %d",
				name, sv.ID, sv.Autor, sv.CreatedAt, sv.LastUpdate, len(sv.Embedding))
		}
	}
	var n int64
	app.db.Raw("SELECT count(*) FROM servicos WHERE id = ? OR autor = 'Prefeito'", forged["id"]).Scan(&n)
	if n != 0 {
		t.Errorf("a forged id or autor was stored")
	}
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
