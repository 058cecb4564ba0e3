package validate

import (
	"path/filepath"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// renderIngressVariant renders staging with the ingress-nginx component in
// place of gateway-api, as a platform team without a Gateway API controller
// would, from a copy of the overlay's files.
func renderIngressVariant(t *testing.T) []kube.Object {
	t.Helper()
	files := []string{"dependencies.yaml", "limits.yaml", "autoscaling.yaml"}
	return renderStagingVariant(t, files, func(k8s string) string {
		return `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: municipal-staging
resources: [dependencies.yaml, ` + filepath.Join(k8s, "base") + `]
components: [` + filepath.Join(k8s, "components", "dependencies") + `, ` + filepath.Join(k8s, "components", "ingress-nginx") + `]
images:
  - {name: ghcr.io/municipal-apis/gateway, newTag: 0.1.0}
  - {name: ghcr.io/municipal-apis/search-admin, newTag: 0.1.0}
  - {name: ghcr.io/municipal-apis/jobs, newTag: 0.1.0}
patches:
  - {path: limits.yaml, target: {kind: Deployment}}
  - {path: autoscaling.yaml, target: {kind: HorizontalPodAutoscaler}}
`
	})
}

func TestTheIngressVariantReplacesTheRoute(t *testing.T) {
	t.Parallel()
	objs := renderIngressVariant(t)
	deps := mustDependencies(t, "staging")
	if n := len(kube.All[gatewayv1.HTTPRoute](objs)); n != 0 {
		t.Errorf("%d HTTPRoutes beside the Ingress", n)
	}
	ingresses := kube.All[networkingv1.Ingress](objs)
	if len(ingresses) != 1 {
		t.Fatalf("%d Ingresses, want 1", len(ingresses))
	}
	ing := ingresses[0]
	if len(ing.Spec.Rules) != 1 || ing.Spec.Rules[0].Host != deps.Spec.Edge.Host || !tlsCovers(ing, deps.Spec.Edge.Host) {
		t.Errorf("Ingress rules %+v, want %s served with TLS", ing.Spec.Rules, deps.Spec.Edge.Host)
	}
	for _, r := range ing.Spec.Rules {
		for _, p := range r.HTTP.Paths {
			if p.Backend.Service == nil || p.Backend.Service.Name != "gateway" {
				t.Errorf("path %s leads to %+v, not the gateway", p.Path, p.Backend)
			}
		}
	}
	checkOnlyClusterIPServices(t, objs)
	policies := kube.All[networkingv1.NetworkPolicy](objs)
	gatewayPods := kube.PodOf("municipal-staging", find[appsv1.Deployment](t, objs, "gateway").Spec.Template)
	controller := outside(deps.Spec.Edge.Controller.Namespace, deps.Spec.Edge.Controller.PodSelector)
	if ok, err := kube.Allowed(policies, controller, gatewayPods, 8080); err != nil || !ok {
		t.Errorf("the controller dependencies.yaml names cannot reach the gateway (err %v)", err)
	}
}
