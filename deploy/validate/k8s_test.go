package validate

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

var overlayNames = []string{"staging", "production"}

func TestEveryPodIsHardened(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		for _, w := range workloads(mustRender(t, overlay)) {
			t.Run(fmt.Sprintf("%s %s %s runs unprivileged with bounded resources", overlay, w.kind, w.name), func(t *testing.T) {
				t.Parallel()
				checkPodSecurity(t, w.template.Spec)
				for _, c := range append(w.template.Spec.InitContainers, w.template.Spec.Containers...) {
					checkContainer(t, c)
				}
			})
		}
	}
}

func checkPodSecurity(t *testing.T, spec corev1.PodSpec) {
	t.Helper()
	sc := spec.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Error("pod securityContext.runAsNonRoot is not true")
	}
	if sc == nil || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		t.Error("pod securityContext.runAsUser is not a non-zero uid")
	}
	if sc == nil || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("pod seccompProfile is not RuntimeDefault")
	}
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Error("the pod mounts a service account token it never uses")
	}
}

func checkContainer(t *testing.T, c corev1.Container) {
	t.Helper()
	if err := imagePinned(c.Image); err != nil {
		t.Errorf("container %s: %v", c.Name, err)
	}
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatalf("container %s has no securityContext", c.Name)
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Errorf("container %s allows privilege escalation", c.Name)
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Errorf("container %s has a writable root filesystem", c.Name)
	case sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0:
		t.Errorf("container %s keeps Linux capabilities", c.Name)
	}
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, hasReq := c.Resources.Requests[res]
		limit, hasLimit := c.Resources.Limits[res]
		if !hasReq || !hasLimit {
			t.Errorf("container %s lacks a %s request or limit", c.Name, res)
			continue
		}
		if req.Cmp(limit) > 0 {
			t.Errorf("container %s requests more %s (%s) than its limit (%s)", c.Name, res, req.String(), limit.String())
		}
	}
}

func TestServersProbeTheirHealthEndpoints(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		objs := mustRender(t, overlay)
		for name, port := range programs {
			t.Run(fmt.Sprintf("%s %s probes /livez and /readyz on its admin port %d", overlay, name, adminPort), func(t *testing.T) {
				t.Parallel()
				d := find[appsv1.Deployment](t, objs, name)
				c := d.Spec.Template.Spec.Containers[0]
				if got := namedPort(c, "http"); got != port {
					t.Fatalf("container port http = %d, want %d", got, port)
				}
				if got := namedPort(c, "admin"); got != adminPort {
					t.Fatalf("container port admin = %d, want %d", got, adminPort)
				}
				cm := configMap(t, objs, name).Data
				if addr := cm["HTTP_ADDR"]; addr != fmt.Sprintf(":%d", port) {
					t.Errorf("HTTP_ADDR = %q, want :%d", addr, port)
				}
				if addr := cm["ADMIN_ADDR"]; addr != fmt.Sprintf(":%d", adminPort) {
					t.Errorf("ADMIN_ADDR = %q, want :%d", addr, adminPort)
				}
				checkProbe(t, "liveness", c.LivenessProbe, "/livez")
				checkProbe(t, "readiness", c.ReadinessProbe, "/readyz")
				checkProbe(t, "startup", c.StartupProbe, "/livez")
				ann := d.Spec.Template.Annotations
				if ann["prometheus.io/scrape"] != "true" || ann["prometheus.io/port"] != fmt.Sprint(adminPort) || ann["prometheus.io/path"] != "/metrics" {
					t.Errorf("scrape annotations %v, want /metrics on the admin port %d", ann, adminPort)
				}
			})
		}
	}
}

func namedPort(c corev1.Container, name string) int32 {
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	return 0
}

// adminPort is every server's ADMIN_ADDR port: probes and Prometheus only.
const adminPort = 9090

func checkProbe(t *testing.T, kind string, p *corev1.Probe, path string) {
	t.Helper()
	if p == nil || p.HTTPGet == nil {
		t.Errorf("no %s HTTP probe", kind)
		return
	}
	if p.HTTPGet.Path != path || p.HTTPGet.Port.StrVal != "admin" {
		t.Errorf("%s probe GETs %s on port %s, want %s on admin", kind, p.HTTPGet.Path, p.HTTPGet.Port.String(), path)
	}
}

func TestEveryServerHasAServiceAutoscalerAndDisruptionBudget(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		objs := mustRender(t, overlay)
		for name, port := range programs {
			t.Run(fmt.Sprintf("%s %s is reachable, scales and survives drains", overlay, name), func(t *testing.T) {
				t.Parallel()
				d := find[appsv1.Deployment](t, objs, name)
				pods := labels.Set(d.Spec.Template.Labels)
				svc := find[corev1.Service](t, objs, name)
				if !labels.SelectorFromSet(svc.Spec.Selector).Matches(pods) || len(svc.Spec.Selector) == 0 {
					t.Errorf("Service selector %v does not select the pods %v", svc.Spec.Selector, pods)
				}
				if p := svc.Spec.Ports; len(p) != 1 || p[0].Port != port || p[0].TargetPort.StrVal != "http" {
					t.Errorf("Service ports = %+v, want %d to the http port", p, port)
				}
				hpa := find[autoscalingv2.HorizontalPodAutoscaler](t, objs, name)
				checkAutoscaler(t, hpa, d)
				pdb := find[policyv1.PodDisruptionBudget](t, objs, name)
				if !selectorMatches(t, pdb.Spec.Selector, pods) {
					t.Errorf("PodDisruptionBudget does not select the pods %v", pods)
				}
				if pdb.Spec.MaxUnavailable == nil && pdb.Spec.MinAvailable == nil {
					t.Error("PodDisruptionBudget sets no budget")
				}
			})
		}
	}
}

func checkAutoscaler(t *testing.T, hpa *autoscalingv2.HorizontalPodAutoscaler, d *appsv1.Deployment) {
	t.Helper()
	ref := hpa.Spec.ScaleTargetRef
	if ref.Kind != "Deployment" || ref.Name != d.Name || ref.APIVersion != "apps/v1" {
		t.Errorf("autoscaler targets %+v, want Deployment %s", ref, d.Name)
	}
	if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 1 || *hpa.Spec.MinReplicas > hpa.Spec.MaxReplicas {
		t.Fatalf("autoscaler range %v..%d is empty", hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
	}
	if d.Spec.Replicas != nil {
		t.Errorf("the Deployment pins replicas: %d; every apply would reset the autoscaler's count", *d.Spec.Replicas)
	}
	if len(hpa.Spec.Metrics) == 0 {
		t.Error("autoscaler has no metric")
	}
}

func selectorMatches(t *testing.T, sel *metav1.LabelSelector, set labels.Set) bool {
	t.Helper()
	if sel == nil {
		return false
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatalf("selector: %v", err)
	}
	return !s.Empty() && s.Matches(set)
}

func TestOnlyTheGatewayIsExposed(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		t.Run(overlay+" has one HTTPRoute, no Ingress, and the route leads to the gateway", func(t *testing.T) {
			t.Parallel()
			objs := mustRender(t, overlay)
			if n := len(kube.All[networkingv1.Ingress](objs)); n != 0 {
				t.Errorf("%d Ingresses; the Gateway API route is the default way in", n)
			}
			routes := kube.All[gatewayv1.HTTPRoute](objs)
			if len(routes) != 1 {
				t.Fatalf("%d HTTPRoutes, want 1", len(routes))
			}
			checkRoute(t, routes[0], find[corev1.Service](t, objs, "gateway"))
			checkOnlyClusterIPServices(t, objs)
		})
	}
}

// checkRoute: every rule of the route leads to the gateway Service's port,
// and the route attaches to a named listener of a Gateway.
func checkRoute(t *testing.T, route *gatewayv1.HTTPRoute, gateway *corev1.Service) {
	t.Helper()
	for _, p := range route.Spec.ParentRefs {
		if p.Kind == nil || *p.Kind != "Gateway" || p.SectionName == nil || *p.SectionName == "" {
			t.Errorf("parent %+v is not a listener of a Gateway", p)
		}
	}
	for _, h := range route.Spec.Hostnames {
		if !validHost(string(h)) {
			t.Errorf("host %q is not a DNS name", h)
		}
	}
	for _, r := range route.Spec.Rules {
		for _, b := range r.BackendRefs {
			if b.Name != "gateway" || b.Port == nil || int32(*b.Port) != gateway.Spec.Ports[0].Port || (b.Kind != nil && *b.Kind != "Service") {
				t.Errorf("the route leads to %+v, not the gateway Service on port %d", b.BackendObjectReference, gateway.Spec.Ports[0].Port)
			}
		}
	}
}

func checkOnlyClusterIPServices(t *testing.T, objs []kube.Object) {
	t.Helper()
	for _, svc := range kube.All[corev1.Service](objs) {
		if svc.Spec.Type != "" && svc.Spec.Type != corev1.ServiceTypeClusterIP {
			t.Errorf("Service %s is of type %s, reachable from outside", svc.Name, svc.Spec.Type)
		}
	}
}

func tlsCovers(ing *networkingv1.Ingress, host string) bool {
	for _, tls := range ing.Spec.TLS {
		if slices.Contains(tls.Hosts, host) && tls.SecretName != "" {
			return true
		}
	}
	return false
}

func TestNoSecretValueIsCommitted(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		t.Run(overlay+" references Secrets by name and never carries one", func(t *testing.T) {
			t.Parallel()
			objs := mustRender(t, overlay)
			if s := kube.All[corev1.Secret](objs); len(s) > 0 {
				t.Errorf("%d Secret objects rendered; secrets are created out of band", len(s))
			}
			for _, cm := range kube.All[corev1.ConfigMap](objs) {
				for k, v := range cm.Data {
					if looksSecret(k) || hasCredentials(v) {
						t.Errorf("ConfigMap %s key %s holds a credential", cm.Name, k)
					}
				}
			}
			for _, w := range workloads(objs) {
				checkEnvSources(t, objs, w)
			}
		})
	}
}

// checkEnvSources: credentials come from secretKeyRef, and every referenced
// ConfigMap exists.
func checkEnvSources(t *testing.T, objs []kube.Object, w workload) {
	t.Helper()
	for _, c := range append(w.template.Spec.InitContainers, w.template.Spec.Containers...) {
		for _, e := range c.Env {
			fromSecret := e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil
			// A connection URL may be written out when it carries no
			// credentials (hasCredentials below): the role comes from
			// PGUSER/PGPASSWORD, read from a Secret.
			literalURL := strings.HasSuffix(e.Name, "_URL") && e.ValueFrom == nil
			if looksSecret(e.Name) && !fromSecret && !literalURL {
				t.Errorf("%s %s: %s is not read from a Secret", w.kind, w.name, e.Name)
			}
			if hasCredentials(e.Value) {
				t.Errorf("%s %s: %s carries credentials inline", w.kind, w.name, e.Name)
			}
		}
		for _, src := range c.EnvFrom {
			if src.SecretRef != nil {
				continue
			}
			if src.ConfigMapRef == nil || !slices.ContainsFunc(kube.All[corev1.ConfigMap](objs), func(cm *corev1.ConfigMap) bool {
				return cm.Name == src.ConfigMapRef.Name
			}) {
				t.Errorf("%s %s: envFrom %+v names no rendered ConfigMap", w.kind, w.name, src)
			}
		}
	}
}

// hasCredentials reports whether v contains a URL with a user or password in it.
func hasCredentials(v string) bool {
	for _, field := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '=' }) {
		_, rest, ok := strings.Cut(field, "://")
		if !ok {
			continue
		}
		host, _, _ := strings.Cut(rest, "/")
		if strings.Contains(host, "@") {
			return true
		}
	}
	return false
}

func TestMigrationsRunBeforeTheServerStarts(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		objs := mustRender(t, overlay)
		t.Run(overlay+" runs no migration Job beside the rollout", func(t *testing.T) {
			t.Parallel()
			if jobs := kube.All[batchv1.Job](objs); len(jobs) > 0 {
				t.Errorf("%d Jobs: a Job applied with the Deployments races their rollout", len(jobs))
			}
		})
		for _, name := range []string{"search-admin", "jobs"} {
			t.Run(fmt.Sprintf("%s %s migrates in an init container of the image it serves", overlay, name), func(t *testing.T) {
				t.Parallel()
				spec := find[appsv1.Deployment](t, objs, name).Spec.Template.Spec
				if len(spec.InitContainers) != 1 {
					t.Fatalf("%d init containers, want the one migrate", len(spec.InitContainers))
				}
				mc, sc := spec.InitContainers[0], spec.Containers[0]
				if mc.Name != "migrate" || mc.Image != sc.Image {
					t.Errorf("init container %s runs %s, the server runs %s", mc.Name, mc.Image, sc.Image)
				}
				if !slices.Equal(mc.Args, []string{"migrate"}) || !slices.Equal(sc.Args, []string{"serve"}) {
					t.Errorf("init args %q, server args %q; want migrate and serve", mc.Args, sc.Args)
				}
				if mc.RestartPolicy != nil {
					t.Error("the migrate init container is a sidecar; it must finish before the server starts")
				}
				checkProbe(t, "readiness", sc.ReadinessProbe, "/readyz")
			})
		}
	}
}

func TestTheNamespaceEnforcesRestrictedPodSecurity(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		t.Run(overlay+" puts every object in its restricted namespace, applied on its own", func(t *testing.T) {
			t.Parallel()
			objs := mustRender(t, overlay)
			// Listed in the overlay, the Namespace would go with a
			// `kubectl delete -k` or a GitOps prune, databases and all.
			if n := len(kube.All[corev1.Namespace](objs)); n != 0 {
				t.Errorf("the overlay renders %d Namespaces; it must leave its namespace to namespace.yaml", n)
			}
			ns := overlayNamespace(t, overlay)
			if ns.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
				t.Errorf("namespace %s does not enforce the restricted pod security standard", ns.Name)
			}
			for _, o := range objs {
				if o.Namespace != ns.Name {
					t.Errorf("%s %s is in namespace %q, want %q", o.Kind, o.Name, o.Namespace, ns.Name)
				}
			}
		})
	}
}

// routeHosts returns the public hosts the overlay's HTTPRoutes serve.
func routeHosts(t *testing.T, overlay string) []string {
	t.Helper()
	var hosts []string
	for _, r := range kube.All[gatewayv1.HTTPRoute](mustRender(t, overlay)) {
		for _, h := range r.Spec.Hostnames {
			hosts = append(hosts, string(h))
		}
	}
	return hosts
}

// validHost reports whether h is a DNS name, not an IP or a wildcard.
func validHost(h string) bool {
	return h != "" && net.ParseIP(h) == nil && !strings.ContainsAny(h, "*:/ ")
}

func TestGatewayConfigurationReachesTheServices(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		t.Run(overlay+" routes each prefix to a Service port and sets well-formed limits", func(t *testing.T) {
			t.Parallel()
			objs := mustRender(t, overlay)
			cfg := configMap(t, objs, "gateway").Data
			want := map[string]string{"/search": "search-admin", "/go/v1": "jobs"}
			for _, route := range strings.Split(cfg["ROUTES"], ",") {
				prefix, target, _ := strings.Cut(route, "=")
				u, err := url.Parse(target)
				if err != nil || u.Hostname() != want[prefix] {
					t.Errorf("route %q leads to %q, want Service %q", prefix, target, want[prefix])
					continue
				}
				svc := find[corev1.Service](t, objs, u.Hostname())
				if port := fmt.Sprint(svc.Spec.Ports[0].Port); u.Port() != port {
					t.Errorf("route %q uses port %s, Service %s listens on %s", prefix, u.Port(), svc.Name, port)
				}
				delete(want, prefix)
			}
			if len(want) > 0 {
				t.Errorf("no route for %v", want)
			}
			for _, k := range []string{"RATE_LIMIT_UNAUTHENTICATED", "RATE_LIMIT_PER_CLIENT", "RATE_LIMIT_PER_DEPARTMENT"} {
				if !rateFormat.MatchString(cfg[k]) {
					t.Errorf("%s = %q, want the 100-M form", k, cfg[k])
				}
			}
			for _, cidr := range strings.Split(cfg["TRUSTED_PROXIES"], ",") {
				if _, err := netip.ParsePrefix(cidr); err != nil {
					t.Errorf("TRUSTED_PROXIES entry %q: %v", cidr, err)
				}
			}
		})
	}
}

// rateFormat is the gateway's rate syntax (docs/decisions.md#rate-limits-and-headers).
var rateFormat = regexp.MustCompile(`^[1-9][0-9]*-[SMHD]$`)
