package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/stack"
)

// shared is the real platform (devidp, both services, the gateway) every
// test of the command runs against; each test uses names of its own.
var shared = stack.NewShared(stack.Options{})

func TestMain(m *testing.M) { os.Exit(stack.Main(m, shared)) }

// unique returns name with a suffix no other test or run uses.
func unique(name string) string { return name + " " + uuid.NewString()[:8] }

// envOf returns the variables that point the command at s's gateway and
// identity provider as the realm client clientID.
func envOf(tb testing.TB, s *stack.Stack, clientID string) map[string]string {
	tb.Helper()
	secret, err := stack.Secret(clientID)
	if err != nil {
		tb.Fatal(err)
	}
	return map[string]string{
		"MUNICIPAL_SEARCH_URL": s.SearchBaseURL(), "MUNICIPAL_JOBS_URL": s.JobsBaseURL(),
		"MUNICIPAL_AUTH_URL": s.AuthURL, "MUNICIPAL_CLIENT_ID": clientID, "MUNICIPAL_CLIENT_SECRET": secret,
	}
}

// tripwired returns env with both API base URLs pointing at a server that
// fails t when any request reaches it, for commands that must refuse their
// input before sending anything; tokens still come from the real devidp.
func tripwired(t *testing.T, env map[string]string) map[string]string {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "tripwire", http.StatusTeapot)
	}))
	t.Cleanup(func() {
		srv.Close()
		if n := hits.Load(); n > 0 {
			t.Errorf("%d requests reached the API; the command must refuse its input before sending", n)
		}
	})
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	out["MUNICIPAL_SEARCH_URL"], out["MUNICIPAL_JOBS_URL"] = srv.URL+"/search", srv.URL+"/go/v1"
	return out
}

// total returns how many items the list at path of area holds under
// filter, read through the gateway as clientID.
func total(t *testing.T, s *stack.Stack, clientID, area, path string, filter map[string][]string) int64 {
	t.Helper()
	var page client.Page[json.RawMessage]
	_, err := s.MustClient(t, clientID).Do(context.Background(), http.MethodGet, area, path, nil, &page, client.WithQuery(filter))
	if err != nil {
		t.Fatalf("list %s: %v", path, err)
	}
	return page.Meta.Total
}

// idOf returns the id row of a one-resource table the command printed.
func idOf(t *testing.T, r result) string {
	t.Helper()
	for line := range strings.Lines(r.stdout) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "id" {
			return f[1]
		}
	}
	t.Fatalf("no id row in the output:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	return ""
}
