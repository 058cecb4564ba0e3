package kube_test

import (
	"strings"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		doc     string
		wantErr string
	}{
		{"a valid Deployment decodes", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: ns\nspec:\n  replicas: 2\n", ""},
		{"a misspelt field is refused", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replica: 2\n", "unknown field"},
		{"a repeated field is refused", "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  name: b\n", "already set"},
		{"a wrong type is refused", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: two\n", "cannot unmarshal"},
		{"a kind the platform does not deploy is refused", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n", "not one the platform deploys"},
		{"an old API version is refused", "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\n", "not one the platform deploys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj, err := kube.Decode([]byte(tt.doc))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Decode error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			d, ok := obj.Value.(*appsv1.Deployment)
			if !ok || obj.Name != "web" || obj.Namespace != "ns" || *d.Spec.Replicas != 2 {
				t.Fatalf("Decode = %+v", obj)
			}
		})
	}
}

func TestRenderRefusesAMissingKustomization(t *testing.T) {
	t.Parallel()
	if _, err := kube.Render(t.TempDir()); err == nil {
		t.Fatal("Render of an empty folder succeeded")
	}
}

func policy(t *testing.T, doc string) *networkingv1.NetworkPolicy {
	t.Helper()
	var p networkingv1.NetworkPolicy
	if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
		t.Fatalf("policy: %v", err)
	}
	return &p
}

func TestAllowed(t *testing.T) {
	t.Parallel()
	web := kube.Pod{Namespace: "ns", Labels: map[string]string{"app": "web"}, NamedPorts: map[string]int32{"http": 8080}}
	db := kube.Pod{Namespace: "ns", Labels: map[string]string{"app": "db"}}
	other := kube.Pod{Namespace: "other", NamespaceLabels: map[string]string{"team": "b"}, Labels: map[string]string{"app": "web"}}
	ingressOnly := policy(t, `
metadata: {name: web-in, namespace: ns}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
    - from: [{podSelector: {matchLabels: {app: db}}}]
      ports: [{port: http}]`)
	egressRange := policy(t, `
metadata: {name: db-out, namespace: ns}
spec:
  podSelector: {matchLabels: {app: db}}
  policyTypes: [Egress]
  egress:
    - to: [{ipBlock: {cidr: 0.0.0.0/0}}]
    - to: [{namespaceSelector: {}}]
      ports: [{port: 8000, endPort: 8100}, {port: 9000, protocol: UDP}]`)
	dnsOut := policy(t, `
metadata: {name: dns-out, namespace: ns}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Egress]
  egress:
    - to: [{ipBlock: {cidr: 169.254.20.0/24, except: [169.254.20.99/32]}}, {namespaceSelector: {}}]
      ports: [{port: 53, protocol: TCP}]`)
	nodeCache, excepted, elsewhere := kube.Address("169.254.20.10"), kube.Address("169.254.20.99"), kube.Address("10.96.0.10")
	broken := policy(t, `
metadata: {name: broken, namespace: ns}
spec:
  podSelector: {matchExpressions: [{key: app, operator: Bogus}]}`)

	tests := []struct {
		name     string
		policies []*networkingv1.NetworkPolicy
		from, to kube.Pod
		port     int32
		want     bool
		wantErr  bool
	}{
		{"no policy allows everything", nil, web, db, 5432, true, false},
		{"an ingress rule admits its peer on the named port", []*networkingv1.NetworkPolicy{ingressOnly}, db, web, 8080, true, false},
		{"an ingress rule refuses another port", []*networkingv1.NetworkPolicy{ingressOnly}, db, web, 8081, false, false},
		{"a pod selector without namespace selector matches only its namespace", []*networkingv1.NetworkPolicy{ingressOnly}, other, web, 8080, false, false},
		{"a policy without policyTypes and egress rules leaves egress open", []*networkingv1.NetworkPolicy{ingressOnly}, web, other, 443, true, false},
		{"an ip block never matches a pod", []*networkingv1.NetworkPolicy{egressRange}, db, other, 443, false, false},
		{"a port range admits a port inside it", []*networkingv1.NetworkPolicy{egressRange}, db, other, 8050, true, false},
		{"a port range refuses a port past its end", []*networkingv1.NetworkPolicy{egressRange}, db, other, 8101, false, false},
		{"a UDP rule does not admit TCP", []*networkingv1.NetworkPolicy{egressRange}, db, other, 9000, false, false},
		{"an ip block admits an address inside it", []*networkingv1.NetworkPolicy{dnsOut}, web, nodeCache, 53, true, false},
		{"an ip block refuses an address in its exceptions", []*networkingv1.NetworkPolicy{dnsOut}, web, excepted, 53, false, false},
		{"an ip block refuses an address outside it", []*networkingv1.NetworkPolicy{dnsOut}, web, elsewhere, 53, false, false},
		{"a namespace selector never matches an address that is no pod", []*networkingv1.NetworkPolicy{dnsOut}, web, elsewhere, 53, false, false},
		{"a malformed selector is an error", []*networkingv1.NetworkPolicy{broken}, db, web, 8080, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := kube.Allowed(tt.policies, tt.from, tt.to, tt.port)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("Allowed = %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
