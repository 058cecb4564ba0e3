package client_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

func TestA401RenewsTheTokenAndRetriesOnce(t *testing.T) {
	t.Parallel()
	created := ok(http.StatusCreated, map[string]any{"id": 1, "nome": "Tecnologia"})
	listed := ok(http.StatusOK, map[string]any{"data": []any{}, "meta": map[string]any{"page": 1, "per_page": 20, "total": 0}})
	tests := []struct {
		name        string
		replies     []reply
		disableKeys bool
		maxAttempts int
		call        func(context.Context, *client.Client) error
		wantReqs    int
		wantFetches int64 // token requests, the first included
		wantErr     bool
	}{
		{"a GET answered 401 is sent again with a new token and succeeds",
			[]reply{unauthorized(), listed}, false, 0, listEmpregos, 2, 2, false},
		{"a POST with its generated key is sent again after a 401",
			[]reply{unauthorized(), created}, false, 0, createCategoria, 2, 2, false},
		{"a second 401 is returned: the token is renewed once per call",
			[]reply{unauthorized()}, false, 0, listEmpregos, 2, 2, true},
		{"a POST without a key is not sent again, but its token is dropped",
			[]reply{unauthorized(), created}, true, 0, createCategoria, 1, 1, true},
		{"MaxAttempts 1 returns the 401 at once",
			[]reply{unauthorized(), listed}, false, 1, listEmpregos, 1, 1, true},
		{"a 401 after a 429 still gets its one renewal",
			[]reply{rateLimited(map[string]string{"Retry-After": "0"}), unauthorized(), listed}, false, 0, listEmpregos, 3, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newScript(tt.replies...)
			a := newAPI(t, routeAll(s))
			cfg := a.config(t, devidptest.JobsAdmin)
			cfg.DisableIdempotencyKeys = tt.disableKeys
			cfg.Retry.MaxAttempts = tt.maxAttempts
			var w waits
			fixedClock(&cfg, time.Now(), &w)

			err := tt.call(context.Background(), mustClient(t, cfg))
			if (err != nil) != tt.wantErr || (err != nil && !client.IsUnauthorized(err)) {
				t.Fatalf("err = %v, want a 401: %v", err, tt.wantErr)
			}
			reqs := s.requests()
			if len(reqs) != tt.wantReqs {
				t.Fatalf("requests = %d, want %d", len(reqs), tt.wantReqs)
			}
			if got := a.tokenFetches.Load(); got != tt.wantFetches {
				t.Errorf("token requests = %d, want %d", got, tt.wantFetches)
			}
			last := reqs[len(reqs)-1]
			if tt.wantFetches > 1 && last.authorization == reqs[0].authorization {
				t.Error("the retry carried the token the server had refused")
			}
			if last.key != reqs[0].key {
				t.Errorf("the retry's Idempotency-Key = %q, want the first attempt's %q", last.key, reqs[0].key)
			}
		})
	}
}

func TestARefusedTokenIsNotReusedByTheNextCall(t *testing.T) {
	t.Parallel()
	s := newScript(unauthorized(), ok(http.StatusCreated, map[string]any{"id": 1, "nome": "x"}))
	a := newAPI(t, routeAll(s))
	cfg := a.config(t, devidptest.JobsAdmin)
	cfg.DisableIdempotencyKeys = true
	c := mustClient(t, cfg)
	if err := createCategoria(context.Background(), c); !client.IsUnauthorized(err) {
		t.Fatalf("first call: err = %v, want the 401", err)
	}
	if err := createCategoria(context.Background(), c); err != nil {
		t.Fatalf("second call: %v", err)
	}
	reqs := s.requests()
	if len(reqs) != 2 || reqs[0].authorization == reqs[1].authorization {
		t.Errorf("requests = %d, same token twice: %v; want the second call to fetch a new token", len(reqs), len(reqs) == 2 && reqs[0].authorization == reqs[1].authorization)
	}
}

func listEmpregos(ctx context.Context, c *client.Client) error {
	_, err := c.ListEmpregos(ctx, client.ListOptions{})
	return err
}
