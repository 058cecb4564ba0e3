package auth_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/problem"
)

// response is what a test reads back from a handler.
type response struct {
	status    int
	challenge string
	body      problem.Body
	text      string
}

func serve(t *testing.T, h http.Handler, authorization string) response {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/jobs", nil)
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	res := response{status: w.Code, challenge: w.Header().Get("WWW-Authenticate"), text: w.Body.String()}
	if strings.HasPrefix(w.Header().Get("Content-Type"), problem.ContentType) {
		if err := json.Unmarshal(w.Body.Bytes(), &res.body); err != nil {
			t.Fatalf("decode problem body %q: %v", w.Body.String(), err)
		}
	}
	return res
}

// echoCaller answers 200 with the display name of the claims in the context.
func echoCaller(w http.ResponseWriter, r *http.Request) {
	c, ok := auth.ClaimsFrom(r.Context())
	if !ok {
		http.Error(w, "no claims", http.StatusInternalServerError)
		return
	}
	_, _ = w.Write([]byte(c.DisplayName()))
}

func ginEngine(v *auth.Verifier, scope string) http.Handler {
	gin.SetMode(gin.TestMode)
	e := gin.New()
	e.GET("/jobs", auth.Middleware(v), auth.RequireScope(scope), func(c *gin.Context) {
		v, ok := c.Get(auth.GinKey)
		if claims, isClaims := v.(*auth.Claims); !ok || !isClaims || claims.ClientID == "" {
			c.String(http.StatusInternalServerError, "no claims under GinKey")
			return
		}
		echoCaller(c.Writer, c.Request)
	})
	return e
}

func httpHandler(v *auth.Verifier, scope string) http.Handler {
	return auth.HTTPMiddleware(v, auth.RequireScopeHTTP(scope, http.HandlerFunc(echoCaller)))
}

func TestMiddleware(t *testing.T) {
	idp := devidptest.Start(t)
	v := idp.Verifier(t)
	jobsAdmin := "Bearer " + idp.Token(t, devidptest.JobsAdmin)
	reader := "Bearer " + idp.Token(t, devidptest.Reader)
	const forbidden = `Bearer realm="municipal", error="insufficient_scope", scope="jobs:write"`

	handlers := map[string]func(*auth.Verifier, string) http.Handler{"gin": ginEngine, "net/http": httpHandler}
	tests := []struct {
		name      string
		auth      string
		status    int
		challenge string
		detail    string
	}{
		{"lets a token with the scope through and stores its claims", jobsAdmin, http.StatusOK, "", ""},
		{"answers 401 without a token", "", http.StatusUnauthorized, `Bearer realm="municipal"`, "the request has no bearer token"},
		{"answers 401 to a malformed token", "Bearer nope", http.StatusUnauthorized, invalidToken("the token is not a JWT"), "the token is not a JWT"},
		{"answers 403 naming the scope the token lacks", reader, http.StatusForbidden, forbidden, `this request needs the "jobs:write" scope, which the token does not grant`},
	}
	for kind, build := range handlers {
		h := build(v, "jobs:write")
		for _, tt := range tests {
			t.Run(kind+" "+tt.name, func(t *testing.T) {
				res := serve(t, h, tt.auth)
				if res.status != tt.status || res.challenge != tt.challenge {
					t.Fatalf("got %d %q, want %d %q (body %s)", res.status, res.challenge, tt.status, tt.challenge, res.text)
				}
				if tt.status == http.StatusOK {
					if res.text != "service-account-jobs-admin" {
						t.Errorf("handler saw caller %q", res.text)
					}
					return
				}
				if res.body.Status != tt.status || res.body.Detail != tt.detail {
					t.Errorf("problem body = %+v, want status %d and detail %q", res.body, tt.status, tt.detail)
				}
			})
		}
	}
}

func TestRequireScopePanicsOnAScopeThatCannotBeQuoted(t *testing.T) {
	for _, scope := range []string{"", `jobs"write`, "jobs write", `a\b`} {
		t.Run("scope "+strings.ReplaceAll(scope, " ", "_"), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("RequireScope(%q) did not panic", scope)
				}
			}()
			auth.RequireScope(scope)
		})
	}
}

func TestCheckScopeWithoutClaimsIsUnauthorized(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	err := auth.CheckScope(r.Context(), "jobs:read")
	if pe := mustProblem(t, err, problem.EUNAUTHORIZED); pe.Header.Get("WWW-Authenticate") != `Bearer realm="municipal"` {
		t.Errorf("WWW-Authenticate = %q", pe.Header.Get("WWW-Authenticate"))
	}
}
