package gateway_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

// quickKeys refreshes the signing keys every 200ms instead of every 5 minutes.
func quickKeys() option {
	return withAuth(func(c *auth.Config) { c.RefreshInterval, c.RefetchCooldown = 200*time.Millisecond, 50*time.Millisecond })
}

func TestATokenOfARemovedSigningKeyIsRefusedWithinOneRefresh(t *testing.T) {
	t.Parallel()
	h := start(t, quickKeys())
	const path = "/go/v1/api/v1/empregos"
	old := h.idp.Token(t, devidptest.JobsAdmin)
	for range 2 { // the second answer comes from the token cache
		if resp, body := h.get(t, path, old); resp.StatusCode != http.StatusOK {
			t.Fatalf("before the rotation: %d %s", resp.StatusCode, body)
		}
	}
	oldKid := h.idp.KeyID()
	h.idp.RotateKey(t)
	h.idp.RemoveKey(t, oldKid)
	waitFor(t, "the gateway refuses the token of the removed key", func() bool {
		resp, _ := h.get(t, path, old)
		return resp.StatusCode == http.StatusUnauthorized
	})
	resp, body := h.get(t, path, old)
	problemBody(t, resp, body, http.StatusUnauthorized)
	if resp, body := h.get(t, path, h.idp.Token(t, devidptest.JobsAdmin)); resp.StatusCode != http.StatusOK {
		t.Fatalf("a token of the new key: %d %s", resp.StatusCode, body)
	}
}

func TestAnIdentityProviderOutageDegradesButDoesNotStopTheGateway(t *testing.T) {
	t.Parallel()
	h := start(t, quickKeys())
	const path = "/go/v1/api/v1/empregos"
	seen := h.idp.Token(t, devidptest.JobsAdmin)
	if resp, _ := h.get(t, path, seen); resp.StatusCode != http.StatusOK {
		t.Fatalf("before the outage: %d", resp.StatusCode)
	}
	readyz := func() (int, string) {
		resp, body := h.admin(t, "/readyz")
		return resp.StatusCode, body
	}
	waitFor(t, "the gateway is ready", func() bool { s, b := readyz(); return s == http.StatusOK && strings.Contains(b, `"oidc":"ok"`) })

	h.idp.Stop(t)
	waitFor(t, "readyz says the identity provider is unreachable", func() bool {
		_, b := readyz()
		return strings.Contains(b, `"oidc":"degraded: unreachable"`)
	})
	if status, body := readyz(); status != http.StatusOK || !strings.Contains(body, `"status":"degraded"`) {
		t.Fatalf("/readyz during the outage: %d %s; want 200 degraded", status, body)
	}
	unseen := h.idp.SignRaw(t, h.idp.Claims(t, devidptest.Reader), nil)
	for name, tok := range map[string]string{"a token seen before": seen, "a token never seen, signed by a held key": unseen} {
		if resp, body := h.get(t, path, tok); resp.StatusCode != http.StatusOK {
			t.Errorf("%s during the outage: %d %s", name, resp.StatusCode, body)
		}
	}
	waitFor(t, "several refreshes failed", func() bool { return atoi(metric(t, h, `oidc_jwks_fetches_total{result="error"}`)) >= 3 })
	if got := metric(t, h, "oidc_jwks_stale"); got != "1" {
		t.Errorf("oidc_jwks_stale = %q during the outage, want 1", got)
	}
	if n := strings.Count(h.logs.String(), "the identity provider cannot be reached"); n != 1 {
		t.Errorf("the outage was logged %d times, want once", n)
	}

	h.idp.Resume(t)
	waitFor(t, "readyz is ok again", func() bool { s, b := readyz(); return s == http.StatusOK && strings.Contains(b, `"oidc":"ok"`) })
	if got := metric(t, h, "oidc_jwks_stale"); got != "0" {
		t.Errorf("oidc_jwks_stale = %q after the outage, want 0", got)
	}
}
