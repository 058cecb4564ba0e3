package validate

import (
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

func TestNoPlaceholderSurvivesARender(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		t.Run(overlay+" replaces every value marked from-dependencies.yaml", func(t *testing.T) {
			t.Parallel()
			for _, o := range mustRender(t, overlay) {
				data, err := yaml.Marshal(o.Value)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(data), placeholder) {
					t.Errorf("%s %s still holds %q", o.Kind, o.Name, placeholder)
				}
			}
			for _, p := range kube.All[networkingv1.NetworkPolicy](mustRender(t, overlay)) {
				for _, port := range policyPorts(p) {
					if port.Port != nil && port.Port.IntVal == 1 {
						t.Errorf("NetworkPolicy %s keeps the placeholder port 1", p.Name)
					}
				}
			}
		})
	}
}

func policyPorts(p *networkingv1.NetworkPolicy) []networkingv1.NetworkPolicyPort {
	var out []networkingv1.NetworkPolicyPort
	for _, r := range p.Spec.Ingress {
		out = append(out, r.Ports...)
	}
	for _, r := range p.Spec.Egress {
		out = append(out, r.Ports...)
	}
	return out
}

// checkPeer: the first rule of p leads to exactly the neighbour n.
func checkPeer(t *testing.T, rules []networkingv1.NetworkPolicyEgressRule, n neighbour, what string) {
	t.Helper()
	for _, r := range rules {
		if len(r.To) == 0 || r.To[0].NamespaceSelector == nil || r.To[0].PodSelector == nil {
			continue
		}
		if !maps.Equal(r.To[0].PodSelector.MatchLabels, n.PodSelector) {
			continue
		}
		if ns := r.To[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"]; ns != n.Namespace {
			t.Errorf("%s: policy namespace %q, dependencies.yaml says %q", what, ns, n.Namespace)
		}
		if len(r.Ports) != 1 || r.Ports[0].Port == nil || r.Ports[0].Port.IntVal != n.Port {
			t.Errorf("%s: policy ports %+v, dependencies.yaml says %d", what, r.Ports, n.Port)
		}
		return
	}
	t.Errorf("%s: no egress rule selects the pods %v of namespace %s", what, n.PodSelector, n.Namespace)
}

// envOf returns the variable name of container c, failing when it is missing.
func envOf(t *testing.T, c corev1.Container, name string) corev1.EnvVar {
	t.Helper()
	for _, e := range c.Env {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("container %s has no %s", c.Name, name)
	return corev1.EnvVar{}
}

// secretOf returns the Secret a variable is read from, "" when it is not.
func secretOf(e corev1.EnvVar) string {
	if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
		return ""
	}
	return e.ValueFrom.SecretKeyRef.Name
}

// checkServiceURL: u addresses Service service in namespace ns on port, by
// its cluster DNS name.
func checkServiceURL(t *testing.T, what string, u *url.URL, ns string, port int32) {
	t.Helper()
	host := strings.TrimSuffix(u.Hostname(), ".cluster.local")
	parts := strings.Split(host, ".")
	if len(parts) != 3 || parts[1] != ns || parts[2] != "svc" {
		t.Errorf("%s host %q is not <service>.%s.svc", what, u.Hostname(), ns)
	}
	if u.Port() != fmt.Sprint(port) {
		t.Errorf("%s port %q, the policy allows %d", what, u.Port(), port)
	}
}

func TestEveryNeighbourIsWhatDependenciesNames(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		objs, deps := mustRender(t, overlay), mustDependencies(t, overlay)
		for _, service := range []string{"search-admin", "jobs"} {
			t.Run(fmt.Sprintf("%s %s reaches and logs into the database dependencies.yaml names", overlay, service), func(t *testing.T) {
				t.Parallel()
				db := deps.databaseOf(service)
				checkPeer(t, find[networkingv1.NetworkPolicy](t, objs, service).Spec.Egress, db.neighbour, service+" database")
				u, err := url.Parse(db.URL)
				if err != nil || u.Scheme != "postgres" || u.User != nil {
					t.Fatalf("database URL %q is not a postgres:// URL without credentials", db.URL)
				}
				checkServiceURL(t, "database URL", u, db.Namespace, db.Port)
				if mode := u.Query().Get("sslmode"); mode == "" || mode == "disable" || mode == "allow" || mode == "prefer" {
					t.Errorf("database URL sslmode %q does not require TLS", mode)
				}
				if cluster, ok := db.PodSelector["cnpg.io/cluster"]; ok && !strings.HasPrefix(u.Hostname(), cluster+"-rw.") {
					t.Errorf("CloudNativePG cluster %s serves its primary as %s-rw, the URL names %s", cluster, cluster, u.Hostname())
				}
				if db.OwnerSecret == db.RuntimeSecret || db.OwnerSecret == "" || db.RuntimeSecret == "" {
					t.Errorf("owner %q and runtime %q must be two roles", db.OwnerSecret, db.RuntimeSecret)
				}
				spec := find[appsv1.Deployment](t, objs, service).Spec.Template.Spec
				for _, c := range []struct {
					container corev1.Container
					secret    string
				}{{initContainer(t, spec, "migrate"), db.OwnerSecret}, {spec.Containers[0], db.RuntimeSecret}} {
					if got := envOf(t, c.container, "DATABASE_URL").Value; got != db.URL {
						t.Errorf("%s DATABASE_URL %q, dependencies.yaml says %q", c.container.Name, got, db.URL)
					}
					for _, v := range []string{"PGUSER", "PGPASSWORD"} {
						if got := secretOf(envOf(t, c.container, v)); got != c.secret {
							t.Errorf("%s reads %s from Secret %q, want %q", c.container.Name, v, got, c.secret)
						}
					}
				}
			})
		}
		t.Run(overlay+" gateway reaches the Redis dependencies.yaml names", func(t *testing.T) {
			t.Parallel()
			redis := deps.Spec.Redis
			checkPeer(t, find[networkingv1.NetworkPolicy](t, objs, "gateway").Spec.Egress, redis.neighbour, "redis")
			c := find[appsv1.Deployment](t, objs, "gateway").Spec.Template.Spec.Containers[0]
			if got := secretOf(envOf(t, c, "REDIS_URL")); got != redis.URLSecret {
				t.Errorf("REDIS_URL from Secret %q, dependencies.yaml says %q", got, redis.URLSecret)
			}
		})
		t.Run(overlay+" servers verify tokens of the identity provider dependencies.yaml names", func(t *testing.T) {
			t.Parallel()
			idp := deps.Spec.IdentityProvider
			checkPeer(t, find[networkingv1.NetworkPolicy](t, objs, "allow-identity-provider").Spec.Egress, idp.neighbour, "identity provider")
			oidc := configMap(t, objs, "oidc").Data
			if oidc["OIDC_ISSUER_URL"] != idp.IssuerURL || oidc["OIDC_JWKS_URL"] != idp.JWKSURL {
				t.Errorf("oidc ConfigMap %v, dependencies.yaml says issuer %q and keys %q", oidc, idp.IssuerURL, idp.JWKSURL)
			}
			jwks, err := url.Parse(idp.JWKSURL)
			if err != nil || (jwks.Scheme != "http" && jwks.Scheme != "https") {
				t.Fatalf("JWKS URL %q is not http(s)", idp.JWKSURL)
			}
			checkServiceURL(t, "JWKS URL", jwks, idp.Namespace, idp.Port)
			if instance, ok := idp.PodSelector["app.kubernetes.io/instance"]; ok && idp.PodSelector["app"] == "keycloak" &&
				!strings.HasPrefix(jwks.Hostname(), instance+"-service.") {
				t.Errorf("the Keycloak Operator serves Keycloak %s as %s-service, the JWKS URL names %s", instance, instance, jwks.Hostname())
			}
			if (jwks.Scheme == "http") != (idp.Port == 8080) {
				t.Errorf("JWKS over %s on port %d: the Keycloak Operator serves http on 8080 and https on 8443", jwks.Scheme, idp.Port)
			}
		})
		t.Run(overlay+" gateway is entered through the edge dependencies.yaml names", func(t *testing.T) {
			t.Parallel()
			edge := deps.Spec.Edge
			controller := neighbour{Namespace: edge.Controller.Namespace, PodSelector: edge.Controller.PodSelector}
			in := find[networkingv1.NetworkPolicy](t, objs, "gateway-from-edge").Spec.Ingress
			if len(in) != 1 || len(in[0].From) != 1 || in[0].From[0].NamespaceSelector == nil || in[0].From[0].PodSelector == nil ||
				in[0].From[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != controller.Namespace ||
				!maps.Equal(in[0].From[0].PodSelector.MatchLabels, controller.PodSelector) {
				t.Errorf("gateway-from-edge admits %+v, dependencies.yaml names %+v", in, controller)
			}
			if got := configMap(t, objs, "gateway").Data["TRUSTED_PROXIES"]; got != edge.Controller.TrustedProxies {
				t.Errorf("TRUSTED_PROXIES %q, dependencies.yaml says %q", got, edge.Controller.TrustedProxies)
			}
			for _, cidr := range strings.Split(edge.Controller.TrustedProxies, ",") {
				p, err := netip.ParsePrefix(cidr)
				if err != nil || !p.Addr().IsPrivate() || p.Bits() < narrowest(p) {
					t.Errorf("trusted proxy range %q is not a private range of /%d or narrower: name the controller's pods only, never the pod network", cidr, narrowest(p))
				}
			}
			route := find[gatewayv1.HTTPRoute](t, objs, "gateway")
			if len(route.Spec.ParentRefs) != 1 {
				t.Fatalf("HTTPRoute parents %+v, want the one Gateway", route.Spec.ParentRefs)
			}
			p := route.Spec.ParentRefs[0]
			if string(p.Name) != edge.Gateway.Name || p.Namespace == nil || string(*p.Namespace) != edge.Gateway.Namespace ||
				p.SectionName == nil || string(*p.SectionName) != edge.Gateway.SectionName {
				t.Errorf("HTTPRoute attaches to %+v, dependencies.yaml names %+v", p, edge.Gateway)
			}
			if len(route.Spec.Hostnames) != 1 || string(route.Spec.Hostnames[0]) != edge.Host {
				t.Errorf("HTTPRoute hosts %v, dependencies.yaml says %s", route.Spec.Hostnames, edge.Host)
			}
		})
		t.Run(overlay+" every pod resolves names through the DNS dependencies.yaml names", func(t *testing.T) {
			t.Parallel()
			dns := deps.Spec.DNS
			egress := find[networkingv1.NetworkPolicy](t, objs, "allow-dns").Spec.Egress
			checkPeerOnPort53(t, egress, dns.Namespace, dns.PodSelector)
			for _, cidr := range []string{dns.NodeLocalCIDR, dns.ServiceCIDR} {
				if _, err := netip.ParsePrefix(cidr); err != nil {
					t.Errorf("DNS address %q: %v", cidr, err)
				}
			}
		})
	}
}

// checkPeerOnPort53: the DNS rule selects the cluster DNS pods.
func checkPeerOnPort53(t *testing.T, rules []networkingv1.NetworkPolicyEgressRule, ns string, pods map[string]string) {
	t.Helper()
	for _, r := range rules {
		for _, to := range r.To {
			if to.NamespaceSelector != nil && to.PodSelector != nil &&
				to.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] == ns && maps.Equal(to.PodSelector.MatchLabels, pods) {
				return
			}
		}
	}
	t.Errorf("no DNS rule selects pods %v in %s", pods, ns)
}

// initContainer returns the init container called name.
func initContainer(t *testing.T, spec corev1.PodSpec, name string) corev1.Container {
	t.Helper()
	for _, c := range spec.InitContainers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no init container %q", name)
	return corev1.Container{}
}

// narrowest is the widest prefix length a trusted-proxy range may have: a
// /24 of IPv4, a /64 of IPv6, room for an edge controller's pods and no
// more.
func narrowest(p netip.Prefix) int {
	if p.Addr().Is6() {
		return 64
	}
	return 24
}
