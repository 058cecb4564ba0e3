package client_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

func TestCallsRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	s := newScript(ok(http.StatusOK, map[string]any{}))
	a := newAPI(t, routeAll(s))
	cfg := a.config(t, devidptest.CatalogAdmin)
	cfg.JobsBaseURL = ""
	c := mustClient(t, cfg)
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"an unknown area is refused", func() error { _, err := c.Do(ctx, "GET", "billing", "/x", nil, nil); return err }, `unknown area "billing"`},
		{"an area without a base URL is refused", func() error { _, err := c.GetEmprego(ctx, 1); return err }, "no base URL is configured for the jobs area"},
		{"a relative path is refused", func() error { _, err := c.Do(ctx, "GET", client.AreaSearch, "api/v1", nil, nil); return err }, "must start with /"},
		{"a dot-dot segment is refused", func() error { _, err := c.Do(ctx, "GET", client.AreaSearch, "/api/../../admin", nil, nil); return err }, "must not hold . or .. segments"},
		{"a dot-dot id is refused", func() error { _, err := c.GetServico(ctx, ".."); return err }, "must not hold . or .. segments"},
		{"an empty id is refused", func() error { _, err := c.GetServico(ctx, ""); return err }, "the id is empty"},
		{"a method with spaces is refused", func() error { _, err := c.Do(ctx, "GET /x", client.AreaSearch, "/x", nil, nil); return err }, "invalid method"},
		{"a malformed query is refused", func() error { _, err := c.Do(ctx, "GET", client.AreaSearch, "/x?a=%zz", nil, nil); return err }, "query of"},
		{"a body that cannot be encoded is refused", func() error {
			_, err := c.Do(ctx, "POST", client.AreaSearch, "/x", map[string]any{"f": func() {}}, nil)
			return err
		}, "encode the body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("the server saw %d requests, want none", n)
	}
}

func TestAnswersTheClientCannotUse(t *testing.T) {
	t.Parallel()
	a := newAPI(t, func(g *gin.RouterGroup) {
		g.GET("/go/v1/big", func(c *gin.Context) { c.Data(200, "application/json", []byte(`"`+strings.Repeat("a", 4096)+`"`)) })
		g.GET("/go/v1/text", func(c *gin.Context) { c.Data(200, "application/json", []byte(`not json`)) })
		g.GET("/go/v1/empty", func(c *gin.Context) { c.Status(200) })
	})
	cfg := a.config(t, devidptest.JobsAdmin)
	cfg.MaxResponseBytes = 1024
	c := mustClient(t, cfg)
	tests := []struct{ name, path, want string }{
		{"an answer over MaxResponseBytes is an error", "/big", "exceeds 1024 bytes"},
		{"an answer that is not JSON is an error", "/text", "decode the answer"},
		{"an empty answer where a body was expected is an error", "/empty", "the answer has no body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out any
			_, err := c.Do(context.Background(), "GET", client.AreaJobs, tt.path, nil, &out)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestDoPassesRawBodiesThrough(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(30 * time.Second).Unix()
	s := newScript(reply{status: http.StatusCreated, body: map[string]any{"id": 1, "nome": "Saúde"}, header: map[string]string{
		"X-RateLimit-Limit": "600", "X-RateLimit-Remaining": "12", "X-RateLimit-Reset": strconv.FormatInt(reset, 10), "X-Request-ID": "req-1", "Idempotent-Replayed": "true",
	}})
	a := newAPI(t, routeAll(s))
	c := mustClient(t, a.config(t, devidptest.JobsAdmin))
	raw := json.RawMessage(`{"nome":"Saúde","unknown_member":true}`)
	var out json.RawMessage
	resp, err := c.Do(context.Background(), "post", client.AreaJobs, client.CategoriasPath+"?dry=1", raw, &out, client.WithHeader("X-Request-ID", "req-1"))
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	if got := string(s.requests()[0].body); got != string(raw) {
		t.Errorf("sent %s, want the raw body unchanged %s", got, raw)
	}
	if s.requests()[0].query != "dry=1" || s.requests()[0].method != http.MethodPost {
		t.Errorf("request = %+v, want POST with the query of the path", s.requests()[0])
	}
	if string(out) != `{"id":1,"nome":"Saúde"}` {
		t.Errorf("out = %s, want the raw answer", out)
	}
	rl := resp.RateLimit
	if resp.StatusCode != 201 || resp.Attempts != 1 || !rl.Present || rl.Limit != 600 || rl.Remaining != 12 || rl.Reset.Unix() != reset || resp.RequestID != "req-1" || !resp.Replayed {
		t.Errorf("response = %+v, want a replayed 201 with the rate-limit headers and request id", resp)
	}
}

func TestConfigIsValidated(t *testing.T) {
	t.Parallel()
	valid := client.Config{SearchBaseURL: "http://127.0.0.1:8080/search", TokenURL: client.TokenURL("http://127.0.0.1:8090/", "municipal"), ClientID: "a", ClientSecret: "b"}
	tests := []struct {
		name string
		edit func(*client.Config)
		want string
	}{
		{"a config without base URLs is refused", func(c *client.Config) { c.SearchBaseURL = "" }, "set SearchBaseURL, JobsBaseURL or both"},
		{"a base URL without a scheme is refused", func(c *client.Config) { c.JobsBaseURL = "localhost:8080/go/v1" }, "JobsBaseURL"},
		{"a base URL with a query is refused", func(c *client.Config) { c.SearchBaseURL = "http://h/search?x=1" }, "SearchBaseURL"},
		{"a missing token URL is refused", func(c *client.Config) { c.TokenURL = "" }, "TokenURL"},
		{"missing credentials are refused", func(c *client.Config) { c.ClientSecret = "" }, "ClientID and ClientSecret"},
		{"a complete config is accepted", func(*client.Config) {}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := valid
			tt.edit(&cfg)
			_, err := client.New(cfg)
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if got := valid.TokenURL; got != "http://127.0.0.1:8090/auth/realms/municipal/protocol/openid-connect/token" {
		t.Errorf("TokenURL = %s", got)
	}
}
