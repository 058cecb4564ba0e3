package http_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	jobshttp "github.com/municipal-apis/platform/services/jobs/internal/http"
)

// TestNomeInputAcceptsWhatTheDocumentSays holds the NomeInput text of the
// OpenAPI document to the handlers: each resource accepts and ignores the
// read-only members the text names for it, and refuses the others.
func TestNomeInputAcceptsWhatTheDocumentSays(t *testing.T) {
	t.Parallel()
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Description string `json:"description"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(jobshttp.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	text := doc.Components.Schemas["NomeInput"].Description
	e := newEnv(t)
	tests := []struct {
		path, phrase      string
		accepted, refused []string
	}{
		{"/api/v1/empresas", "id and empregos for an Empresa", []string{"id", "empregos"}, []string{"cursos"}},
		{"/api/v1/orgaos", "id, empregos and cursos for an Orgao", []string{"id", "empregos", "cursos"}, nil},
		{"/api/v1/categorias", "id and cursos for a Categoria", []string{"id", "cursos"}, []string{"empregos"}},
	}
	for _, tt := range tests {
		t.Run(tt.path+" accepts "+strings.Join(tt.accepted, ", "), func(t *testing.T) {
			if !strings.Contains(text, tt.phrase) {
				t.Errorf("the NomeInput text does not say %q: %q", tt.phrase, text)
			}
			for _, member := range tt.accepted {
				body := map[string]any{"nome": "Aceito " + tt.path + " " + member, member: readOnlyValue(member)}
				expectStatus(t, e.do(http.MethodPost, tt.path, admin, body), http.StatusCreated)
			}
			for _, member := range tt.refused {
				body := map[string]any{"nome": "Recusado " + tt.path + " " + member, member: readOnlyValue(member)}
				expectStatus(t, e.do(http.MethodPost, tt.path, admin, body), http.StatusUnprocessableEntity)
			}
		})
	}
}

// readOnlyValue is a plausible echoed value of a read-only member.
func readOnlyValue(member string) any {
	if member == "id" {
		return 99
	}
	return []any{}
}
