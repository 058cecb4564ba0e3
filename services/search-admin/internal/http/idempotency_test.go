package http_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/server"
)

// post sends a create of body as catalog-admin with the given headers.
func (a *testApp) post(t testing.TB, body map[string]any, header map[string]string) response {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/admin/services", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+a.token("catalog-admin"))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return a.serve(req)
}

func (a *testApp) countServicos(t testing.TB) int64 {
	t.Helper()
	var n int64
	if err := a.db.Table("servicos").Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func TestARetriedCreateWithAnIdempotencyKeyStoresOneServico(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	key := map[string]string{idempotency.Header: "create-iptu-1"}
	first := app.post(t, validServico(), key)
	created := first.servico(t, http.StatusCreated)
	replay := app.post(t, validServico(), key)
	if replay.servico(t, http.StatusCreated).ID != created.ID || replay.Header.Get("Location") != first.Header.Get("Location") {
		t.Fatalf("replay answered %s (Location %q), want the first answer %s", replay.Body, replay.Header.Get("Location"), first.Body)
	}
	if replay.Header.Get(idempotency.ReplayedHeader) != "true" {
		t.Errorf("replay lacks %s: true", idempotency.ReplayedHeader)
	}
	if n := app.countServicos(t); n != 1 {
		t.Fatalf("%d servicos stored, want 1", n)
	}

	other := with(map[string]any{"resumo": "Outro resumo"})
	if res := app.post(t, other, key); res.Status != http.StatusUnprocessableEntity || res.problem(t).Errors[0].Code != "reused" {
		t.Fatalf("same key, other body: status %d %s, want 422 reused", res.Status, res.Body)
	}
	if n := app.countServicos(t); n != 1 {
		t.Fatalf("a reused key stored another servico: %d", n)
	}
}

func TestLocationCarriesTheGatewayPrefix(t *testing.T) {
	t.Parallel()
	app := newApp(t)
	tests := []struct{ name, prefix, want string }{
		{"behind the gateway the Location starts with its prefix", "/search", "/search/api/v1/admin/services/"},
		{"called directly the Location is the service path", "", "/api/v1/admin/services/"},
		{"a hostile prefix is ignored", "//evil.example", "/api/v1/admin/services/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := map[string]string{}
			if tt.prefix != "" {
				header[server.ForwardedPrefixHeader] = tt.prefix
			}
			res := app.post(t, validServico(), header)
			sv := res.servico(t, http.StatusCreated)
			if got := res.Header.Get("Location"); got != tt.want+sv.ID {
				t.Fatalf("Location = %q, want %q", got, tt.want+sv.ID)
			}
		})
	}
}
