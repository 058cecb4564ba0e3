package load

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/municipal-apis/platform/tools/internal/environment"
)

// Target says where a run would send traffic and how far it may go.
type Target struct {
	// Env is the deployment name (environment.Local, Staging or
	// Production); empty means local.
	Env string
	// URLs are every base URL the run would use: both areas and the
	// identity provider.
	URLs []string
	// AllowRemoteStaging lets a staging run reach the staging hosts.
	AllowRemoteStaging bool
}

// CheckTargets returns why t must not be loaded, or nil. Production, by
// name or by host, is always refused; any other host but loopback is
// refused unless t is a staging run allowed to reach the staging hosts.
func CheckTargets(t Target) error {
	if t.Env == environment.Production {
		return fmt.Errorf("refusing to load production: the API document forbids load tests against it")
	}
	if t.Env != "" && t.Env != environment.Local && t.Env != environment.Staging {
		return fmt.Errorf("refusing unknown environment %q", t.Env)
	}
	if len(t.URLs) == 0 {
		return fmt.Errorf("no base URL to check")
	}
	for _, raw := range t.URLs {
		if err := checkURL(t, raw); err != nil {
			return err
		}
	}
	return nil
}

// checkURL applies the rules of CheckTargets to one base URL.
func checkURL(t Target, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return fmt.Errorf("refusing base URL %q: want http(s)://host[:port][/path] without credentials", raw)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	switch {
	case matchesHost(host, productionHosts):
		return fmt.Errorf("refusing %s: it is a production host, and load tests must not run against production", host)
	case isLoopback(host):
		return nil
	case t.AllowRemoteStaging && t.Env == environment.Staging && matchesHost(host, stagingHosts):
		return nil
	case t.AllowRemoteStaging && t.Env == environment.Staging:
		return fmt.Errorf("refusing %s: --allow-remote-staging reaches only the staging hosts %s", host, strings.Join(stagingHosts, ", "))
	default:
		return fmt.Errorf("refusing %s: load goes to loopback only, unless --env staging --allow-remote-staging for a staging host", host)
	}
}

// isLoopback reports whether host is localhost or a loopback IP literal;
// names are not resolved, so a name pointing elsewhere cannot slip through.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// matchesHost reports whether host is one of hosts or a subdomain of one.
func matchesHost(host string, hosts []string) bool {
	for _, h := range hosts {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}

// The hosts of the production and staging base URLs: the ingress hosts of
// the k8s overlays and their identity providers.
var (
	productionHosts = mustHosts(environment.Production)
	stagingHosts    = mustHosts(environment.Staging)
)

// mustHosts lists the distinct hosts of the named deployment's base URLs;
// the names and URLs are constants, so a failure is a programming error.
func mustHosts(name string) []string {
	env, err := environment.Lookup(name)
	if err != nil {
		panic(err)
	}
	var hosts []string
	for _, raw := range []string{env.SearchURL, env.JobsURL, env.AuthURL} {
		u, err := url.Parse(raw)
		if err != nil {
			panic(err)
		}
		if h := strings.ToLower(u.Hostname()); !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return hosts
}
