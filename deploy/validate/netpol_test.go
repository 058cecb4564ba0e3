package validate

import (
	"fmt"
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
		searchMigrate, jobsMigrate := pod("Job", "search-admin-migrate"), pod("Job", "jobs-migrate")
		ingress := outside("ingress-nginx", map[string]string{"app.kubernetes.io/name": "ingress-nginx"})
		searchDB := outside(ns, map[string]string{"app.kubernetes.io/name": "postgres", "app.kubernetes.io/instance": "search-admin-db"})
		jobsDB := outside(ns, map[string]string{"app.kubernetes.io/name": "postgres", "app.kubernetes.io/instance": "jobs-db"})
		redis := outside(ns, map[string]string{"app.kubernetes.io/name": "redis"})
		keycloak := outside("keycloak", map[string]string{"app.kubernetes.io/name": "keycloak"})
		dns := outside("kube-system", map[string]string{"k8s-app": "kube-dns"})
		stray := outside(ns, map[string]string{"app": "debug-shell"})

		tests := []struct {
			name     string
			from, to kube.Pod
			port     int32
			want     bool
		}{
			{"the ingress controller reaches the gateway", ingress, gateway, 8080, true},
			{"the gateway reaches search-admin", gateway, search, 8081, true},
			{"the gateway reaches jobs", gateway, jobs, 8082, true},
			{"the gateway reaches redis", gateway, redis, 6379, true},
			{"search-admin reaches its database", search, searchDB, 5432, true},
			{"jobs reaches its database", jobs, jobsDB, 5432, true},
			{"the search-admin migration reaches its database", searchMigrate, searchDB, 5432, true},
			{"the jobs migration reaches its database", jobsMigrate, jobsDB, 5432, true},
			{"search-admin fetches signing keys", search, keycloak, 8080, true},
			{"the gateway fetches signing keys", gateway, keycloak, 8080, true},
			{"jobs resolves names", jobs, dns, 53, true},
			{"the ingress controller cannot bypass the gateway to search-admin", ingress, search, 8081, false},
			{"the ingress controller cannot bypass the gateway to jobs", ingress, jobs, 8082, false},
			{"a stray pod in the namespace cannot call search-admin", stray, search, 8081, false},
			{"a stray pod in the namespace cannot call the gateway", stray, gateway, 8080, false},
			{"jobs cannot call search-admin", jobs, search, 8081, false},
			{"search-admin cannot call jobs", search, jobs, 8082, false},
			{"search-admin cannot reach the jobs database", search, jobsDB, 5432, false},
			{"jobs cannot reach the search-admin database", jobs, searchDB, 5432, false},
			{"the gateway cannot reach any database", gateway, searchDB, 5432, false},
			{"search-admin cannot reach redis", search, redis, 6379, false},
			{"the gateway reaches search-admin only on its port", gateway, search, 9090, false},
			{"a migration cannot call the identity provider", searchMigrate, keycloak, 8080, false},
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
