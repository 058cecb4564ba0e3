package client_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

func TestIdempotencyKeys(t *testing.T) {
	t.Parallel()
	created := ok(http.StatusCreated, map[string]any{"id": 1, "nome": "Tecnologia"})
	tests := []struct {
		name        string
		disableKeys bool
		replies     []reply
		call        func(context.Context, *client.Client) error
		wantReqs    int
		wantKey     string // "" no key, "*" a generated one, else exactly this
		wantErr     bool
	}{
		{"a POST carries a generated key and its retries reuse it", false,
			[]reply{unavailable(nil), rateLimited(nil), created}, createCategoria, 3, "*", false},
		{"a POST without a key is not retried when keys are disabled", true,
			[]reply{unavailable(nil), created}, createCategoria, 1, "", true},
		{"a caller's key replaces the generated one", false,
			[]reply{rateLimited(nil), created}, func(ctx context.Context, c *client.Client) error {
				_, err := c.CreateCategoria(ctx, &client.Categoria{Nome: "Tecnologia"}, client.WithIdempotencyKey("import-42"))
				return err
			}, 2, "import-42", false},
		{"a caller's key makes a POST retryable even when keys are disabled", true,
			[]reply{rateLimited(nil), created}, func(ctx context.Context, c *client.Client) error {
				_, err := c.CreateCategoria(ctx, &client.Categoria{Nome: "Tecnologia"}, client.WithIdempotencyKey("import-43"))
				return err
			}, 2, "import-43", false},
		{"a PATCH without a key is not retried", false,
			[]reply{unavailable(nil), ok(http.StatusOK, map[string]any{"id": 1})}, setStatus(), 1, "", true},
		{"a PATCH with a key is retried with the same key", false,
			[]reply{unavailable(nil), ok(http.StatusOK, map[string]any{"id": 1})}, setStatus(client.WithIdempotencyKey("status-1")), 2, "status-1", false},
		{"a 409 with Retry-After to a POST with a key waits for the first request with that key", false,
			[]reply{busy(map[string]string{"Retry-After": "1"}), created}, createCategoria, 2, "*", false},
		{"a 409 without Retry-After is a conflict, not retried", false,
			[]reply{busy(nil), created}, createCategoria, 1, "*", true},
		{"a 409 with Retry-After to a POST without a key is not retried", true,
			[]reply{busy(map[string]string{"Retry-After": "1"}), created}, createCategoria, 1, "", true},
		{"a 409 with Retry-After to a PUT, which carries no key, is not retried", true,
			[]reply{busy(map[string]string{"Retry-After": "1"}), ok(http.StatusOK, map[string]any{"id": 1, "nivel": "Médio"})}, func(ctx context.Context, c *client.Client) error {
				_, err := c.UpdateEscolaridade(ctx, 1, &client.Escolaridade{Nivel: "Médio"})
				return err
			}, 1, "", true},
		{"a PUT needs no key to be retried", true,
			[]reply{unavailable(nil), ok(http.StatusOK, map[string]any{"id": 1, "nivel": "Médio"})}, func(ctx context.Context, c *client.Client) error {
				_, err := c.UpdateEscolaridade(ctx, 1, &client.Escolaridade{Nivel: "Médio"})
				return err
			}, 2, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newScript(tt.replies...)
			a := newAPI(t, routeAll(s))
			cfg := a.config(t, devidptest.JobsAdmin)
			cfg.DisableIdempotencyKeys = tt.disableKeys
			var w waits
			fixedClock(&cfg, time.Now(), &w)

			err := tt.call(context.Background(), mustClient(t, cfg))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tt.wantErr)
			}
			reqs := s.requests()
			if len(reqs) != tt.wantReqs {
				t.Fatalf("requests = %d, want %d", len(reqs), tt.wantReqs)
			}
			for i, r := range reqs {
				switch {
				case tt.wantKey == "*" && (r.key == "" || r.key != reqs[0].key):
					t.Errorf("request %d key = %q, want the first request's non-empty key %q", i, r.key, reqs[0].key)
				case tt.wantKey != "*" && r.key != tt.wantKey:
					t.Errorf("request %d key = %q, want %q", i, r.key, tt.wantKey)
				}
			}
		})
	}
}

func TestEveryPostGetsItsOwnKey(t *testing.T) {
	t.Parallel()
	s := newScript(ok(http.StatusCreated, map[string]any{"id": 1, "nome": "x"}))
	a := newAPI(t, routeAll(s))
	c := mustClient(t, a.config(t, devidptest.JobsAdmin))
	keys := map[string]bool{}
	for range 3 {
		resp, err := c.Do(context.Background(), http.MethodPost, client.AreaJobs, client.EmpresasPath, &client.Empresa{Nome: "x"}, nil)
		if err != nil {
			t.Fatalf("Do: %v", err)
		}
		keys[resp.IdempotencyKey] = true
	}
	for _, r := range s.requests() {
		if !keys[r.key] {
			t.Errorf("the server saw key %q, which no Response reported", r.key)
		}
	}
	if len(keys) != 3 {
		t.Errorf("three POSTs used %d distinct keys, want 3", len(keys))
	}
}

func createCategoria(ctx context.Context, c *client.Client) error {
	_, err := c.CreateCategoria(ctx, &client.Categoria{Nome: "Tecnologia"})
	return err
}

func setStatus(opts ...client.Option) func(context.Context, *client.Client) error {
	return func(ctx context.Context, c *client.Client) error {
		_, err := c.SetEmpregoStatus(ctx, 1, "ABERTO", opts...)
		return err
	}
}
