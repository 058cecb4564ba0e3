package client_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

// elsewhere is a server on another port of the same host, where a redirect
// points: it records every request that reaches it.
type elsewhere struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string
}

func newElsewhere(t *testing.T) *elsewhere {
	t.Helper()
	e := &elsewhere{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.seen = append(e.seen, r.Method+" "+r.URL.Path+" authorization="+r.Header.Get("Authorization")+" body="+string(body))
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"access_token":"from-elsewhere","token_type":"Bearer","expires_in":300,"id":"from-elsewhere"}`)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *elsewhere) requests() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.seen...)
}

// tokenEndpoint starts a token endpoint answering with handle; it returns
// its URL and a count of the requests it received.
func tokenEndpoint(t *testing.T, handle http.HandlerFunc) (string, func() int64) {
	t.Helper()
	var fetches atomic.Int64
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		handle(w, r)
	}))
	t.Cleanup(idp.Close)
	return idp.URL + "/auth/realms/municipal/protocol/openid-connect/token", fetches.Load
}

// getWithTokenURL makes one GetEmprego call as jobs-admin with its tokens
// from tokenURL, retrying without sleeping; it returns the API's script and
// the call's error.
func getWithTokenURL(t *testing.T, tokenURL string, onRetry func(client.Retry)) (*script, error) {
	t.Helper()
	s := newScript(ok(http.StatusOK, map[string]any{}))
	cfg := newAPI(t, routeAll(s)).config(t, devidptest.JobsAdmin)
	cfg.TokenURL = tokenURL
	var w waits
	fixedClock(&cfg, time.Now(), &w)
	cfg.OnRetry = onRetry
	_, err := mustClient(t, cfg).GetEmprego(context.Background(), 7)
	return s, err
}

func TestTheClientFollowsNoRedirectOfTheAPI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		call   func(*client.Client) error
	}{
		{"a GET redirected with 302", http.StatusFound, func(c *client.Client) error {
			_, err := c.GetEmprego(context.Background(), 7)
			return err
		}},
		{"a POST redirected with 307, which would resend its body", http.StatusTemporaryRedirect, func(c *client.Client) error {
			_, err := c.Do(context.Background(), http.MethodPost, client.AreaJobs, client.EmpresasPath, map[string]string{"nome": "segredo"}, nil)
			return err
		}},
		{"a DELETE redirected with 308", http.StatusPermanentRedirect, func(c *client.Client) error {
			return c.DeleteServico(context.Background(), "abc")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			other := newElsewhere(t)
			target := other.srv.URL + "/steal"
			s := newScript(reply{status: tc.status, header: map[string]string{"Location": target}})
			a := newAPI(t, routeAll(s))
			cfg := a.config(t, devidptest.JobsAdmin)
			var w waits
			fixedClock(&cfg, time.Now(), &w)
			err := tc.call(mustClient(t, cfg))
			var redirect *client.RedirectError
			if !errors.As(err, &redirect) || redirect.Status != tc.status || redirect.Location != target {
				t.Fatalf("err = %v, want a *client.RedirectError of %d to %s", err, tc.status, target)
			}
			if seen := other.requests(); len(seen) != 0 {
				t.Errorf("the redirect's target received %q; a token or body must never leave the configured URL", seen)
			}
			if n := len(s.requests()); n != 1 {
				t.Errorf("the API saw %d requests, want 1: a redirect is not retried", n)
			}
		})
	}
}

func TestTheTokenRequestFollowsNoRedirect(t *testing.T) {
	t.Parallel()
	other := newElsewhere(t)
	tokenURL, fetches := tokenEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.srv.URL+"/steal-token", http.StatusTemporaryRedirect)
	})
	s, err := getWithTokenURL(t, tokenURL, nil)
	var redirect *client.RedirectError
	if !errors.As(err, &redirect) {
		t.Fatalf("err = %v, want a *client.RedirectError", err)
	}
	if seen := other.requests(); len(seen) != 0 {
		t.Errorf("the redirect's target received %q; the client secret must go to the token URL only", seen)
	}
	if n := fetches(); n != 1 {
		t.Errorf("token requests = %d, want 1: a redirect is not retried", n)
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("the API saw %d requests, want none without a token", n)
	}
}

func TestAnAnswerThatIsNoTokenIsNotRetried(t *testing.T) {
	t.Parallel()
	tokenURL, fetches := tokenEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><body>Welcome to the city's portal</body></html>")
	})
	_, err := getWithTokenURL(t, tokenURL, nil)
	if err == nil || !strings.Contains(err.Error(), "access token") {
		t.Fatalf("err = %v, want the failure to get an access token", err)
	}
	if n := fetches(); n != 1 {
		t.Errorf("token requests = %d, want 1: each retry would send the secret again for the same answer", n)
	}
}

func TestAnUnreachableIdentityProviderIsRetried(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there: each token request is refused
	retries := 0
	if _, err := getWithTokenURL(t, "http://"+closed+"/token", func(client.Retry) { retries++ }); err == nil {
		t.Fatal("GetEmprego succeeded without an identity provider")
	}
	if want := client.DefaultMaxAttempts - 1; retries != want {
		t.Errorf("retries = %d, want %d: a provider that cannot be reached may be back soon", retries, want)
	}
}
