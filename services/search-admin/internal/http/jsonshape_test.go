package http_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestBodiesOfHostileShapeAreRefusedAndChangeNothing sends bodies whose
// JSON is valid but whose shape is not: repeated members, deep nesting and
// oversized free-form members, as a create and as a replace.
func TestBodiesOfHostileShapeAreRefusedAndChangeNothing(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	stored := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", validServico()).servico(t, http.StatusCreated)
	before := app.do(http.MethodGet, "/api/v1/admin/services/"+stored.ID, "catalog-admin", nil)

	valid, err := json.Marshal(validServico())
	if err != nil {
		t.Fatal(err)
	}
	// withRaw appends raw members to the valid body.
	withRaw := func(members string) string {
		return strings.TrimSuffix(string(valid), "}") + "," + members + "}"
	}
	many := make([]string, 300)
	for i := range many {
		many[i] = `"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i)
	}
	tests := []struct {
		name, body string
		want       violation
	}{
		{"a repeated nome_servico", withRaw(`"nome_servico":"Outro"`), violation{"nome_servico", "duplicate_member"}},
		{"a repeated member inside agents", withRaw(`"agents":{"tool_hint":"a","tool_hint":"b","exclusive_for_agents":true}`), violation{"agents.tool_hint", "duplicate_member"}},
		{"an extra_fields nested 9,000 arrays deep", withRaw(`"extra_fields":{"a":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`), violation{"extra_fields", "max_depth"}},
		{"an extra_fields of 300 members", withRaw(`"extra_fields":{` + strings.Join(many, ",") + `}`), violation{"extra_fields", "max_items"}},
	}
	for _, tt := range tests {
		for _, req := range []struct{ method, path string }{
			{http.MethodPost, "/api/v1/admin/services"},
			{http.MethodPut, "/api/v1/admin/services/" + stored.ID},
		} {
			t.Run(req.method+" with "+tt.name+" is a 422 naming the member", func(t *testing.T) {
				t.Parallel()
				assertViolations(t, app.do(req.method, req.path, "catalog-admin", tt.body), []violation{tt.want})
			})
		}
	}
	t.Cleanup(func() {
		if n := app.countServicos(t); n != 1 {
			t.Errorf("%d servicos stored, want 1", n)
		}
		after := app.do(http.MethodGet, "/api/v1/admin/services/"+stored.ID, "catalog-admin", nil)
		if !bytes.Equal(after.Body, before.Body) {
			t.Errorf("the stored servico changed:\n%s\n%s", before.Body, after.Body)
		}
	})
}

func TestLongTextsAreStoredAndSearchableWithoutOverflowingTheIndex(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	var b strings.Builder
	for i := 0; b.Len() < 900_000; i++ { // short distinct words make the largest tsvector
		b.WriteString(strconv.FormatInt(int64(i)*7919, 36) + "á ") // folded and as written differ
	}
	long := b.String()
	created := app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", with(map[string]any{
		"nome_servico": "Serviço de texto longo", "descricao_completa": long, "status": 1,
	})).servico(t, http.StatusCreated)
	if created.DescricaoCompleta != long {
		t.Errorf("descricao_completa stored with %d bytes, sent %d", len(created.DescricaoCompleta), len(long))
	}
	page := app.searchPage(t, url.Values{"q": {"texto longo"}, "mode": {"keyword"}})
	if len(page.Data) != 1 || page.Data[0].ID != created.ID {
		t.Errorf("keyword search found %v", ids(page))
	}
	assertViolations(t, app.do(http.MethodPost, "/api/v1/admin/services", "catalog-admin", with(map[string]any{"tema_geral": strings.Repeat("palavra ", 120_000)})),
		[]violation{{"tema_geral", "max_length"}})
}
