package e2e_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/stack"
)

// retries records the retries a client makes.
type retries struct {
	mu   sync.Mutex
	list []client.Retry
}

func (r *retries) add(x client.Retry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, x)
}

// rateLimited returns the retries that followed a 429.
func (r *retries) rateLimited() []client.Retry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []client.Retry
	for _, x := range r.list {
		if x.Status == http.StatusTooManyRequests {
			out = append(out, x)
		}
	}
	return out
}

func TestA429IsRetriedAfterTheWaitTheGatewayAsksFor(t *testing.T) {
	t.Parallel()
	const perSecond = 3
	s := stack.StartT(t, stack.Options{RateLimitPerClient: "3-S"})
	var seen retries
	c := newClient(t, s, stack.JobsAdmin, func(cfg *client.Config) { cfg.OnRetry = seen.add })
	ctx := context.Background()

	t.Run("a burst of GETs is throttled and every call still succeeds", func(t *testing.T) {
		for i := 0; i < 3*perSecond && len(seen.rateLimited()) == 0; i++ {
			resp, err := c.Do(ctx, http.MethodGet, client.AreaJobs, client.EscolaridadesPath, nil, nil)
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			if resp.RateLimit.Limit != perSecond {
				t.Errorf("X-RateLimit-Limit = %d, want %d", resp.RateLimit.Limit, perSecond)
			}
			if len(seen.rateLimited()) > 0 && resp.Attempts < 2 {
				t.Errorf("the throttled call reports %d attempts, want at least 2", resp.Attempts)
			}
		}
		throttled := seen.rateLimited()
		if len(throttled) == 0 {
			t.Fatalf("%d GETs in a row were never answered 429 under a limit of %d per second", 3*perSecond, perSecond)
		}
		r := throttled[0]
		var e *client.Error
		if !errors.As(r.Err, &e) || e.RateLimit.Remaining != 0 || e.RateLimit.RetryAfter <= 0 {
			t.Fatalf("the 429 = %v (rate limit %+v), want Remaining 0 and a Retry-After", r.Err, e)
		}
		if r.Delay < e.RateLimit.RetryAfter {
			t.Errorf("the client waited %v, less than the Retry-After of %v", r.Delay, e.RateLimit.RetryAfter)
		}
	})
	t.Run("throttled POSTs are retried and each creates exactly one categoria", func(t *testing.T) {
		before := len(seen.rateLimited())
		var names []string
		for range 2 * perSecond {
			nome := unique("Categoria limitada")
			if _, err := c.CreateCategoria(ctx, &client.Categoria{Nome: nome}); err != nil {
				t.Fatalf("CreateCategoria: %v", err)
			}
			names = append(names, nome)
		}
		if len(seen.rateLimited()) == before {
			t.Errorf("%d POSTs were never throttled under a limit of %d per second", len(names), perSecond)
		}
		for _, nome := range names {
			page, err := c.ListCategorias(ctx, client.ListOptions{Filter: map[string][]string{"nome": {nome}}})
			if err != nil || page.Meta.Total != 1 {
				t.Errorf("categorias named %q: %+v, %v; want exactly one", nome, page, err)
			}
		}
	})
}
