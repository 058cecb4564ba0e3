package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/problem"
)

func TestProblemBodiesBecomeTypedErrors(t *testing.T) {
	t.Parallel()
	var v problem.Violations
	v.Add("nome_servico", "required", "is required")
	v.Add("resumo", "max_length", "must be at most 350 characters")
	tests := []struct {
		name   string
		reply  reply
		is     func(error) bool
		status int
		fields []client.FieldError
		detail string
	}{
		{"a 422 lists every violated field", reply{status: 422, err: v.Err().(*problem.Error)}, client.IsInvalid, 422,
			[]client.FieldError{{Field: "nome_servico", Code: "required", Message: "is required"}, {Field: "resumo", Code: "max_length", Message: "must be at most 350 characters"}},
			"the request has invalid fields"},
		{"a 404 is not found", reply{status: 404, err: notFound()}, client.IsNotFound, 404, nil, "there is no emprego with this id"},
		{"a 409 is a conflict", reply{status: 409, err: problem.Errorf(problem.ECONFLICT, "nome_servico already exists")}, client.IsConflict, 409, nil, "nome_servico already exists"},
		{"a 500 keeps its generic detail", reply{status: 500, err: internal()}, func(err error) bool { return client.StatusOf(err) == 500 }, 500, nil,
			"an unexpected error occurred; quote the request_id when reporting it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.reply.header = map[string]string{"X-RateLimit-Limit": "600", "X-RateLimit-Remaining": "599"}
			a := newAPI(t, routeAll(newScript(tt.reply)))
			_, err := mustClient(t, a.config(t, devidptest.CatalogAdmin)).CreateServico(context.Background(), &client.Servico{NomeServico: "x"})
			var e *client.Error
			if !errors.As(err, &e) || !tt.is(err) {
				t.Fatalf("err = %v, want an *Error of status %d", err, tt.status)
			}
			if e.Status != tt.status || e.Detail != tt.detail || e.Title != http.StatusText(tt.status) {
				t.Errorf("error = %d %q %q, want %d %q %q", e.Status, e.Title, e.Detail, tt.status, http.StatusText(tt.status), tt.detail)
			}
			if len(e.Errors) != len(tt.fields) || (len(tt.fields) > 0 && e.Errors[0] != tt.fields[0]) {
				t.Errorf("field errors = %+v, want %+v", e.Errors, tt.fields)
			}
			if e.RequestID == "" || e.Instance != "/search/api/v1/admin/services" || !strings.HasPrefix(e.Type, "urn:municipal:problem:") {
				t.Errorf("error = %+v, want request_id, instance and type from the body", e)
			}
			if !e.RateLimit.Present || e.RateLimit.Limit != 600 || e.RateLimit.Remaining != 599 {
				t.Errorf("rate limit = %+v, want 600 / 599", e.RateLimit)
			}
			if !strings.Contains(err.Error(), "POST "+client.ServicesPath) || !strings.Contains(err.Error(), e.RequestID) {
				t.Errorf("message %q should name the request and its request_id", err)
			}
		})
	}
}

func TestAuthenticationFailures(t *testing.T) {
	t.Parallel()
	s := newScript(ok(http.StatusCreated, map[string]any{"id": 1, "nome": "x"}))
	a := newAPI(t, func(g *gin.RouterGroup) {
		g.POST("/go/v1/api/v1/categorias", auth.RequireScope("jobs:write"), s.handle)
	})
	stranger := devidptest.Start(t)
	tests := []struct {
		name      string
		clientID  string
		tokenURL  string
		is        func(error) bool
		challenge string
		attempts  int
	}{
		{"a token without the scope is forbidden at once", devidptest.Reader, "", client.IsForbidden, `error="insufficient_scope"`, 1},
		{"a token from another identity provider is unauthorized after one renewal", devidptest.JobsAdmin, stranger.TokenURL(), client.IsUnauthorized, `error="invalid_token"`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := a.config(t, tt.clientID)
			if tt.tokenURL != "" {
				cfg.TokenURL = tt.tokenURL
			}
			resp, err := mustClient(t, cfg).Do(context.Background(), http.MethodPost, client.AreaJobs, client.CategoriasPath, &client.Categoria{Nome: "x"}, nil)
			var e *client.Error
			if !errors.As(err, &e) || !tt.is(err) {
				t.Fatalf("err = %v, want the typed authentication failure", err)
			}
			if e.Attempts != tt.attempts || resp == nil || !strings.Contains(resp.Header.Get("WWW-Authenticate"), tt.challenge) {
				t.Errorf("attempts = %d, response = %+v; want %d attempts and a %s challenge", e.Attempts, resp, tt.attempts, tt.challenge)
			}
		})
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("the handler ran %d times; rejected tokens must stop before it", n)
	}
}

func TestNonProblemErrorBodies(t *testing.T) {
	t.Parallel()
	a := newAPI(t, func(g *gin.RouterGroup) {
		g.GET("/search/*path", func(c *gin.Context) {
			c.Data(http.StatusBadGateway, "text/html", []byte("<html>\n<h1>Bad\x00gateway</h1>"+strings.Repeat("x", 5000)+"</html>"))
		})
	})
	_, err := mustClient(t, a.config(t, devidptest.CatalogAdmin)).GetServico(context.Background(), "0190a")
	var e *client.Error
	if !errors.As(err, &e) || e.Status != http.StatusBadGateway || e.Title != "Bad Gateway" {
		t.Fatalf("err = %v, want a 502 *Error", err)
	}
	if !strings.HasPrefix(e.Detail, "<html> <h1>Bad gateway</h1>") || len([]rune(e.Detail)) > 201 || strings.ContainsAny(e.Detail, "\x00\n") {
		t.Errorf("detail = %q, want the start of the page on one printable line", e.Detail)
	}
}

func TestAnErrorQuotesTheServerWithinBounds(t *testing.T) {
	t.Parallel()
	var v problem.Violations
	for i := range 30 {
		v.Add(fmt.Sprintf("campo_%d", i), "invalid", strings.Repeat("é", 5000))
	}
	flood := v.Err().(*problem.Error)
	flood.Detail = strings.Repeat("x", 100_000)
	a := newAPI(t, routeAll(newScript(reply{status: http.StatusUnprocessableEntity, err: flood})))
	_, err := mustClient(t, a.config(t, devidptest.CatalogAdmin)).CreateServico(context.Background(), &client.Servico{NomeServico: "x"})
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want an *Error", err)
	}
	if len(e.Detail) != 100_000 || len(e.Errors) != 30 {
		t.Errorf("the Error keeps %d bytes of detail and %d field errors, want all 100000 and 30", len(e.Detail), len(e.Errors))
	}
	msg := err.Error()
	if n := utf8.RuneCountInString(msg); n > 30_000 {
		t.Errorf("the message is %d runes long; it must quote the server within bounds", n)
	}
	if !strings.Contains(msg, "campo_0: ") || !strings.Contains(msg, "and 10 more") || strings.Contains(msg, "campo_20:") {
		t.Errorf("the message should list the first 20 field errors and count the rest: %.300q", msg)
	}
}

func TestATokenErrorQuotesTheIdentityProviderWithinBounds(t *testing.T) {
	t.Parallel()
	tokenURL, _ := tokenEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":"invalid_client","error_description":%q}`, strings.Repeat("y", 500_000))
	})
	_, err := getWithTokenURL(t, tokenURL, nil)
	if err == nil || !strings.Contains(err.Error(), "invalid_client") {
		t.Fatalf("err = %v, want the identity provider's invalid_client", err)
	}
	if n := len(err.Error()); n > 2000 {
		t.Errorf("the message is %d bytes long; it must quote the identity provider within bounds", n)
	}
}
