package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/stack"
)

// shared is the stack of every test that does not need limits of its own.
var shared = stack.NewShared(stack.Options{})

func TestMain(m *testing.M) { os.Exit(stack.Main(m, shared)) }

// unique returns name with a suffix no other test or run uses, as the
// shared stack keeps what each test creates.
func unique(name string) string { return name + " " + uuid.NewString()[:8] }

// auditor is an http.RoundTripper that checks that every answer from the
// gateway carries sane X-RateLimit-* headers, 2xx to 5xx.
type auditor struct {
	gateway string
	mu      sync.Mutex
	answers int
	faults  []string
}

func (a *auditor) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || !strings.HasPrefix(r.URL.String(), a.gateway+"/") {
		return resp, err
	}
	fault := rateLimitFault(resp.Header, time.Now())
	a.mu.Lock()
	defer a.mu.Unlock()
	a.answers++
	if fault != "" {
		a.faults = append(a.faults, fmt.Sprintf("%s %s → %d: %s", r.Method, r.URL.Path, resp.StatusCode, fault))
	}
	return resp, nil
}

// rateLimitFault describes what is wrong with the rate-limit headers of h,
// or returns "" when they are present and consistent.
func rateLimitFault(h http.Header, now time.Time) string {
	values := map[string]int64{}
	for _, k := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		vs := h.Values(k)
		if len(vs) != 1 {
			return fmt.Sprintf("%s appears %d times, want once", k, len(vs))
		}
		n, err := strconv.ParseInt(vs[0], 10, 64)
		if err != nil {
			return fmt.Sprintf("%s = %q is not an integer", k, vs[0])
		}
		values[k] = n
	}
	limit, remaining, reset := values["X-RateLimit-Limit"], values["X-RateLimit-Remaining"], values["X-RateLimit-Reset"]
	switch {
	case limit <= 0 || remaining < 0 || remaining > limit:
		return fmt.Sprintf("limit %d, remaining %d", limit, remaining)
	case reset < now.Add(-2*time.Second).Unix() || reset > now.Add(time.Hour).Unix():
		return fmt.Sprintf("X-RateLimit-Reset %d is not Unix seconds of the current window (now %d)", reset, now.Unix())
	}
	return ""
}

// check fails t when an answer lacked the headers, or when none was seen.
func (a *auditor) check(t *testing.T) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.answers == 0 {
		t.Error("no answer from the gateway was audited")
	}
	for _, f := range a.faults {
		t.Errorf("rate-limit headers: %s", f)
	}
}

// audited returns an HTTP client whose answers from s's gateway are
// audited until t ends.
func audited(t *testing.T, s *stack.Stack) *http.Client {
	t.Helper()
	a := &auditor{gateway: s.GatewayURL}
	t.Cleanup(func() { a.check(t) })
	return &http.Client{Timeout: 30 * time.Second, Transport: a}
}

// newClient returns a pkg/client of s for the realm client clientID whose
// answers are audited; adjust may change its configuration.
func newClient(t *testing.T, s *stack.Stack, clientID string, adjust ...func(*client.Config)) *client.Client {
	t.Helper()
	hc := audited(t, s)
	return s.MustClient(t, clientID, append([]func(*client.Config){func(c *client.Config) { c.HTTPClient = hc }}, adjust...)...)
}

// raw sends a request to the gateway without pkg/client, for what the
// client cannot express (no token, a forged one), and returns the answer
// with its body.
func raw(t *testing.T, hc *http.Client, method, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	var body json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s %s: the answer is not JSON: %v", method, url, err)
	}
	return resp, body
}

// bearer returns the Authorization header of c's current token.
func bearer(t *testing.T, c *client.Client) map[string]string {
	t.Helper()
	tok, err := c.Token(context.Background())
	if err != nil {
		t.Fatalf("Token: %v", err)
	}
	return map[string]string{"Authorization": "Bearer " + tok.AccessToken}
}
