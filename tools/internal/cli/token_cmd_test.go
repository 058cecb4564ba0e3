package cli_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/stack"
)

func TestTokenPrintsAVerifiableAccessToken(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	env := envOf(t, s, stack.JobsAdmin)
	r := run(t, env, "", "token")
	r.want(t, 0)
	v, err := auth.NewVerifier(auth.Config{IssuerURL: s.Issuer})
	if err != nil {
		t.Fatalf("NewVerifier: %v", err)
	}
	claims, err := v.Verify(context.Background(), strings.TrimSpace(r.stdout))
	if err != nil {
		t.Fatalf("the printed token does not verify: %v", err)
	}
	if claims.ClientID != stack.JobsAdmin || !claims.HasScope("jobs:write") {
		t.Errorf("claims = %+v, want jobs-admin with jobs:write", claims)
	}

	r = run(t, env, "", "token", "--json", "--scope", "jobs:read")
	r.want(t, 0)
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresAt   string `json:"expires_at"`
		Scope       string `json:"scope"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &tok); err != nil {
		t.Fatalf("--json output %q: %v", r.stdout, err)
	}
	exp, err := time.Parse(time.RFC3339, tok.ExpiresAt)
	if tok.AccessToken == "" || tok.TokenType != "Bearer" || tok.Scope != "jobs:read" || err != nil || !exp.After(time.Now()) {
		t.Errorf("token = %+v, want a Bearer token scoped jobs:read expiring in the future", tok)
	}
}

func TestTokenReportsRefusedCredentials(t *testing.T) {
	t.Parallel()
	env := envOf(t, shared.Get(t), stack.JobsAdmin)
	env["MUNICIPAL_CLIENT_SECRET"] = "wrong"
	r := run(t, env, "", "token")
	r.want(t, 1, "stderr:invalid_client")
	if strings.Contains(r.stderr, "wrong") {
		t.Errorf("the error output shows the secret: %s", r.stderr)
	}
}

func TestSchemasAndMigrationStatus(t *testing.T) {
	t.Parallel()
	env := envOf(t, shared.Get(t), stack.Reader)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"schemas shows a table marking the current version", []string{"schemas"},
			[]string{"current version: v3", "VERSION CURRENT EMBEDDING_MODEL DIMENSIONS FIELDS DESCRIPTION", "v1 hash/ngram-fnv1a 256 nome_servico,resumo,tema_geral", "v3 * hash/ngram-fnv1a 384 nome_servico,"}},
		{"schemas --json prints the API's document", []string{"schemas", "--json"}, []string{`"available_versions": [`, `"dimensions": 384`}},
		{"migration status shows its members", []string{"migration", "status"}, []string{"current_version v3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run(t, env, "", tt.args...).want(t, 0, tt.want...)
		})
	}
}
