package load

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestCheckTargets(t *testing.T) {
	t.Parallel()
	local := []string{"http://127.0.0.1:8080/search", "http://127.0.0.1:8080/go/v1", "http://127.0.0.1:8090"}
	staging := []string{"https://api.staging.municipal.example/search", "https://api.staging.municipal.example/go/v1", "https://auth.staging.municipal.example"}
	tests := []struct {
		name    string
		target  Target
		refused string // part of the refusal, "" when allowed
	}{
		{"loopback IPv4 is allowed", Target{URLs: local}, ""},
		{"another loopback IPv4 address is allowed", Target{URLs: []string{"http://127.8.9.10:1234"}}, ""},
		{"localhost is allowed", Target{Env: "local", URLs: []string{"http://localhost:8080/search", "http://LOCALHOST.:8090"}}, ""},
		{"loopback IPv6 is allowed", Target{URLs: []string{"http://[::1]:8080/go/v1"}}, ""},
		{"staging hosts are allowed when asked for", Target{Env: "staging", AllowRemoteStaging: true, URLs: staging}, ""},
		{"the production environment is refused even on loopback", Target{Env: "production", URLs: local}, "production"},
		{"the production API host is refused", Target{URLs: []string{"https://api.municipal.example/search"}}, "production host"},
		{"the production identity provider is refused", Target{URLs: append(local[:2:2], "https://auth.municipal.example")}, "production host"},
		{"production hosts are refused in any case and with a trailing dot", Target{URLs: []string{"https://API.Municipal.Example./go/v1"}}, "production host"},
		{"a subdomain of a production host is refused", Target{URLs: []string{"https://v2.api.municipal.example"}}, "production host"},
		{"production is refused even with the staging permission", Target{Env: "staging", AllowRemoteStaging: true, URLs: []string{"https://api.municipal.example/go/v1"}}, "production host"},
		{"staging hosts are refused without the permission", Target{Env: "staging", URLs: staging}, "loopback only"},
		{"the permission needs the staging environment", Target{Env: "local", AllowRemoteStaging: true, URLs: staging}, "loopback only"},
		{"the permission reaches only the staging hosts", Target{Env: "staging", AllowRemoteStaging: true, URLs: []string{"https://example.org"}}, "only the staging hosts"},
		{"a remote host is refused", Target{URLs: []string{"http://10.0.0.5:8080"}}, "loopback only"},
		{"a name that merely starts like loopback is refused", Target{URLs: []string{"http://127.0.0.1.nip.io:8080"}}, "loopback only"},
		{"credentials hiding the real host are refused", Target{URLs: []string{"http://127.0.0.1@api.municipal.example/"}}, "without credentials"},
		{"an unspecified address is refused", Target{URLs: []string{"http://0.0.0.0:8080"}}, "loopback only"},
		{"a URL without scheme is refused", Target{URLs: []string{"127.0.0.1:8080"}}, "want http(s)"},
		{"a non-HTTP scheme is refused", Target{URLs: []string{"file:///etc/passwd"}}, "want http(s)"},
		{"an unknown environment is refused", Target{Env: "prod", URLs: local}, "unknown environment"},
		{"no URL at all is refused", Target{}, "no base URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckTargets(tt.target)
			switch {
			case tt.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.refused != "" && err == nil:
				t.Fatal("allowed")
			case tt.refused != "" && !strings.Contains(err.Error(), tt.refused):
				t.Fatalf("refusal %q does not say %q", err, tt.refused)
			}
		})
	}
}

// TestProductionOverlayHostsAreRefused reads the production overlay of k8s
// (its dependencies.yaml names the public host and the identity provider),
// so that a host added there cannot be loaded by mistake.
func TestProductionOverlayHostsAreRefused(t *testing.T) {
	t.Parallel()
	var hosts []string
	for file, pattern := range map[string]string{
		"dependencies.yaml":  `(?m)(?:^\s*host:\s*|https?://)([a-z0-9-]+(?:\.[a-z0-9-]+)+)`,
		"kustomization.yaml": `https?://([a-z0-9.-]+)`,
	} {
		b, err := os.ReadFile("../../../k8s/overlays/production/" + file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(string(b), -1) {
			hosts = append(hosts, m[1])
		}
	}
	if len(hosts) == 0 {
		t.Fatal("found no host in the production overlay")
	}
	for _, h := range hosts {
		if err := CheckTargets(Target{Env: "staging", AllowRemoteStaging: true, URLs: []string{"https://" + h}}); err == nil {
			t.Errorf("production host %s is allowed", h)
		}
	}
}
