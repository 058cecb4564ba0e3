package http_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

func TestHostileRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
		status      int
	}{
		{"a body over the limit is a 413", http.MethodPost, "/api/v1/categorias", "application/json", `{"nome":"` + strings.Repeat("x", maxBody+1) + `"}`, http.StatusRequestEntityTooLarge},
		{"a form body is a 415", http.MethodPost, "/api/v1/categorias", "application/x-www-form-urlencoded", "nome=x", http.StatusUnsupportedMediaType},
		{"a body without content type is a 415", http.MethodPost, "/api/v1/categorias", "", `{"nome":"x"}`, http.StatusUnsupportedMediaType},
		{"truncated JSON is a 400", http.MethodPost, "/api/v1/categorias", "application/json", `{"nome":"x"`, http.StatusBadRequest},
		{"a JSON array is a 400", http.MethodPost, "/api/v1/categorias", "application/json", `[{"nome":"x"}]`, http.StatusBadRequest},
		{"an empty body is a 400", http.MethodPost, "/api/v1/categorias", "application/json", ``, http.StatusBadRequest},
		{"a nested object where a string belongs is a 422", http.MethodPost, "/api/v1/categorias", "application/json", `{"nome":{"$gt":""}}`, http.StatusUnprocessableEntity},
		{"a path with dot segments is a 404", http.MethodGet, "/api/v1/empregos/1/../2", "", "", http.StatusNotFound},
		{"a trailing slash is a 404, not a redirect", http.MethodGet, "/api/v1/empregos/", "", "", http.StatusNotFound},
		{"an id with a NUL is a 404", http.MethodGet, "/api/v1/empregos/1%00", "", "", http.StatusNotFound},
		{"an id in another script is a 404", http.MethodGet, "/api/v1/empregos/%D9%A1", "", "", http.StatusNotFound},
		{"an unknown method is a 405", http.MethodPatch, "/api/v1/categorias", "", "", http.StatusMethodNotAllowed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			req.Header.Set("Authorization", "Bearer "+e.token(admin))
			res := e.send(req)
			expectStatus(t, res, tc.status)
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
	if n := e.count("categorias"); n != 0 {
		t.Errorf("hostile requests stored %d categorias", n)
	}
}

func TestUnicodeRoundTrips(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	names := []string{"Educação Básica", "日本語の授業", "Ação 🚀 Social", strings.Repeat("🎓", 255), "Zero\u200bWidth", "<script>alert(1)</script>"}
	for _, name := range names {
		t.Run("the name "+truncate(name)+" is stored as sent", func(t *testing.T) {
			got := e.mustCreate("/api/v1/orgaos", map[string]any{"nome": name})
			read := e.do(http.MethodGet, at("orgaos", id(got)), readOnly, nil).object(t)
			if read["nome"] != name {
				t.Errorf("nome = %q, want %q", read["nome"], name)
			}
		})
	}
	t.Run("case-insensitive uniqueness folds accented capitals", func(t *testing.T) {
		e.mustCreate("/api/v1/categorias", map[string]any{"nome": "educação"})
		expectStatus(t, e.do(http.MethodPost, "/api/v1/categorias", admin, map[string]any{"nome": "EDUCAÇÃO"}), http.StatusConflict)
	})
	t.Run("256 characters is one too many, whatever their bytes", func(t *testing.T) {
		expectFields(t, e.do(http.MethodPost, "/api/v1/orgaos", admin, map[string]any{"nome": strings.Repeat("🎓", 256)}), "nome")
	})
}

func truncate(s string) string {
	if r := []rune(s); len(r) > 12 {
		return string(r[:12]) + "…"
	}
	return s
}

func TestForgedTokensAreRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	claims := func() map[string]any { return e.idp.Claims(t, admin) }
	expired := claims()
	expired["exp"] = time.Now().Add(-time.Hour).Unix()
	otherIssuer := claims()
	otherIssuer["iss"] = "http://evil.example/auth/realms/municipal"
	otherAudience := claims()
	otherAudience["aud"] = "another-api"
	tests := []struct {
		name  string
		token string
	}{
		{"an unsigned token", devidptest.Unsigned(t, claims(), nil)},
		{"an HS256 token signed with a guessable secret", devidptest.SignHS256(t, claims(), nil, []byte("secret"))},
		{"an expired token", e.idp.SignRaw(t, expired, nil)},
		{"a token of another issuer", e.idp.SignRaw(t, otherIssuer, nil)},
		{"a token for another audience", e.idp.SignRaw(t, otherAudience, nil)},
		{"a token with a flipped signature", flip(e.token(admin))},
		{"garbage", "not-a-jwt"},
	}
	for _, tc := range tests {
		t.Run(tc.name+" is a 401", func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/api/v1/categorias", strings.NewReader(`{"nome":"x"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+tc.token)
			expectStatus(t, e.send(req), http.StatusUnauthorized)
		})
	}
	if n := e.count("categorias"); n != 0 {
		t.Errorf("forged tokens stored %d categorias", n)
	}
}

// flip changes a character in the middle of a token's signature (the
// last one may only carry padding bits).
func flip(token string) string {
	i := strings.LastIndexByte(token, '.') + 10
	repl := byte('A')
	if token[i] == 'A' {
		repl = 'B'
	}
	return token[:i] + string(repl) + token[i+1:]
}
