package validate

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	networkingv1 "k8s.io/api/networking/v1"
)

// outside builds a pod the manifests do not deploy but talk to.
func outside(ns string, podLabels map[string]string) kube.Pod {
	return kube.Pod{Namespace: ns, NamespaceLabels: map[string]string{"kubernetes.io/metadata.name": ns}, Labels: podLabels}
}

func TestEveryPodIsCoveredByDefaultDeny(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		objs := mustRender(t, overlay)
		policies := kube.All[networkingv1.NetworkPolicy](objs)
		for _, w := range workloads(objs) {
			t.Run(fmt.Sprintf("%s %s %s is isolated in both directions", overlay, w.kind, w.name), func(t *testing.T) {
				t.Parallel()
				pod := kube.PodOf(w.namespace, w.template)
				stranger := outside("elsewhere", map[string]string{"app": "stranger"})
				for _, flow := range []struct {
					dir      string
					from, to kube.Pod
				}{{"in", stranger, pod}, {"out", pod, stranger}} {
					ok, err := kube.Allowed(policies, flow.from, flow.to, 443)
					if err != nil || ok {
						t.Errorf("traffic %s with an unrelated pod is allowed (err %v)", flow.dir, err)
					}
				}
			})
		}
	}
}

func TestNetworkPoliciesAllowOnlyTheIntendedFlows(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		objs := mustRender(t, overlay)
		policies := kube.All[networkingv1.NetworkPolicy](objs)
		ns := workloads(objs)[0].namespace
		pod := func(kind, name string) kube.Pod {
			i := slices.IndexFunc(workloads(objs), func(w workload) bool { return w.kind == kind && w.name == name })
			if i < 0 {
				t.Fatalf("no %s %s", kind, name)
			}
			return kube.PodOf(ns, workloads(objs)[i].template)
		}
		gateway, search, jobs := pod("Deployment", "gateway"), pod("Deployment", "search-admin"), pod("Deployment", "jobs")
		deps := mustDependencies(t, overlay)
		neighbourPod := func(n neighbour) kube.Pod { return outside(n.Namespace, n.PodSelector) }
		edge := outside(deps.Spec.Edge.Controller.Namespace, deps.Spec.Edge.Controller.PodSelector)
		searchDB, jobsDB := neighbourPod(deps.Spec.Databases.SearchAdmin.neighbour), neighbourPod(deps.Spec.Databases.Jobs.neighbour)
		redis := neighbourPod(deps.Spec.Redis.neighbour)
		idp := neighbourPod(deps.Spec.IdentityProvider.neighbour)
		dns := outside(deps.Spec.DNS.Namespace, deps.Spec.DNS.PodSelector)
		nodeLocalDNS := kube.Address(netip.MustParsePrefix(deps.Spec.DNS.NodeLocalCIDR).Addr().String())
		dnsServiceIP := kube.Address(netip.MustParsePrefix(deps.Spec.DNS.ServiceCIDR).Addr().String())
		stray := outside(ns, map[string]string{"app": "debug-shell"})
		retiredIngress := outside("ingress-nginx", map[string]string{"app.kubernetes.io/name": "ingress-nginx"})
		strayAddress := kube.Address("203.0.113.7")
		prometheus := outside(deps.Spec.Monitoring.Namespace, deps.Spec.Monitoring.PodSelector)

		tests := []struct {
			name     string
			from, to kube.Pod
			port     int32
			want     bool
		}{
			{"the edge controller reaches the gateway", edge, gateway, 8080, true},
			{"the edge controller cannot reach the gateway's probes and metrics", edge, gateway, adminPort, false},
			{"prometheus scrapes the gateway's admin port", prometheus, gateway, adminPort, true},
			{"prometheus scrapes search-admin's admin port", prometheus, search, adminPort, true},
			{"prometheus scrapes jobs' admin port", prometheus, jobs, adminPort, true},
			{"prometheus cannot call the gateway's API port", prometheus, gateway, 8080, false},
			{"prometheus cannot call search-admin's API port", prometheus, search, 8081, false},
			{"a stray pod in the namespace cannot read the gateway's metrics", stray, gateway, adminPort, false},
			{"the gateway reaches search-admin", gateway, search, 8081, true},
			{"the gateway reaches jobs", gateway, jobs, 8082, true},
			{"the gateway reaches redis", gateway, redis, deps.Spec.Redis.Port, true},
			{"search-admin and its migrations reach its database", search, searchDB, deps.Spec.Databases.SearchAdmin.Port, true},
			{"jobs and its migrations reach its database", jobs, jobsDB, deps.Spec.Databases.Jobs.Port, true},
			{"search-admin fetches signing keys", search, idp, deps.Spec.IdentityProvider.Port, true},
			{"the gateway fetches signing keys", gateway, idp, deps.Spec.IdentityProvider.Port, true},
			{"jobs resolves names through kube-dns", jobs, dns, 53, true},
			{"jobs resolves names through NodeLocal DNSCache", jobs, nodeLocalDNS, 53, true},
			{"the gateway resolves names through the kube-dns Service IP bound on the node", gateway, dnsServiceIP, 53, true},
			{"the DNS addresses admit nothing but DNS", gateway, nodeLocalDNS, 443, false},
			{"no pod reaches an arbitrary address", search, strayAddress, 443, false},
			{"a controller the overlay does not name cannot reach the gateway", retiredIngress, gateway, 8080, false},
			{"the edge controller cannot bypass the gateway to search-admin", edge, search, 8081, false},
			{"the edge controller cannot bypass the gateway to jobs", edge, jobs, 8082, false},
			{"a stray pod in the namespace cannot call search-admin", stray, search, 8081, false},
			{"a stray pod in the namespace cannot call the gateway", stray, gateway, 8080, false},
			{"jobs cannot call search-admin", jobs, search, 8081, false},
			{"search-admin cannot call jobs", search, jobs, 8082, false},
			{"search-admin cannot reach the jobs database", search, jobsDB, deps.Spec.Databases.Jobs.Port, false},
			{"jobs cannot reach the search-admin database", jobs, searchDB, deps.Spec.Databases.SearchAdmin.Port, false},
			{"the gateway cannot reach any database", gateway, searchDB, deps.Spec.Databases.SearchAdmin.Port, false},
			{"search-admin cannot reach redis", search, redis, deps.Spec.Redis.Port, false},
			{"the gateway reaches search-admin only on its port", gateway, search, 9090, false},
		}
		for _, tt := range tests {
			t.Run(overlay+": "+tt.name, func(t *testing.T) {
				t.Parallel()
				got, err := kube.Allowed(policies, tt.from, tt.to, tt.port)
				if err != nil {
					t.Fatalf("Allowed: %v", err)
				}
				if got != tt.want {
					t.Errorf("allowed = %v, want %v", got, tt.want)
				}
			})
		}
	}
}
