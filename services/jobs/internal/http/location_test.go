package http_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/server"
)

func TestLocationCarriesTheGatewayPrefix(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name, prefix, want string
	}{
		{"behind the gateway the Location starts with its prefix", "/go/v1", "/go/v1/api/v1/categorias/%d"},
		{"called directly the Location is the service path", "", "/api/v1/categorias/%d"},
		{"a hostile prefix is ignored", "https://evil.example", "/api/v1/categorias/%d"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/api/v1/categorias", strings.NewReader(fmt.Sprintf(`{"nome":"Categoria %d"}`, i)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+e.token("jobs-admin"))
			if tt.prefix != "" {
				req.Header.Set(server.ForwardedPrefixHeader, tt.prefix)
			}
			res := e.send(req)
			if res.Status != 201 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			if got, want := res.Header.Get("Location"), fmt.Sprintf(tt.want, id(res.object(t))); got != want {
				t.Fatalf("Location = %q, want %q", got, want)
			}
		})
	}
}
