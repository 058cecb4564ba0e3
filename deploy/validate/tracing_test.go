package validate

import (
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// renderTracingVariant renders staging with the tracing component added,
// as an overlay whose cluster runs an OpenTelemetry Collector would.
func renderTracingVariant(t *testing.T) []kube.Object {
	t.Helper()
	overlay, err := os.ReadFile(filepath.Join(overlayDir("staging"), "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The overlay as it is, with its commented tracing line taken in and
	// every relative path pointing at the repository's k8s folder.
	text := strings.Replace(string(overlay), "# - ../../components/tracing", "- ../../components/tracing", 1)
	if text == string(overlay) {
		t.Fatal("the staging overlay has no commented ../../components/tracing line to turn tracing on with")
	}
	return renderStagingVariant(t, nil, func(k8s string) string {
		return strings.ReplaceAll(text, "../../", k8s+"/")
	})
}

func TestTheTracingComponentSendsEveryServersSpansToTheCollector(t *testing.T) {
	t.Parallel()
	objs := renderTracingVariant(t)
	cm := configMap(t, objs, "tracing")
	endpoint := cm.Data["OTEL_EXPORTER_OTLP_ENDPOINT"]
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "http" || u.Port() == "" {
		t.Fatalf("OTEL_EXPORTER_OTLP_ENDPOINT %q is not an http URL with a port", endpoint)
	}
	if p := cm.Data["OTEL_EXPORTER_OTLP_PROTOCOL"]; p != "http/protobuf" {
		t.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q, want http/protobuf", p)
	}
	if _, set := cm.Data["OTEL_SERVICE_NAME"]; set {
		t.Error("the ConfigMap sets OTEL_SERVICE_NAME: every program would trace under one name")
	}
	// <service>.<namespace>.svc: the namespace the policy must open.
	parts := strings.Split(u.Hostname(), ".")
	if len(parts) < 3 || parts[2] != "svc" {
		t.Fatalf("the collector %q is not named <service>.<namespace>.svc", u.Hostname())
	}
	port, _ := strconv.Atoi(u.Port())
	policies := kube.All[networkingv1.NetworkPolicy](objs)
	// The collector's pods as the OpenTelemetry Operator labels them (an
	// OpenTelemetryCollector named otel) and as its Helm chart does.
	collectors := []kube.Pod{
		outside(parts[1], map[string]string{"app.kubernetes.io/name": "otel-collector", "app.kubernetes.io/component": "opentelemetry-collector"}),
		outside(parts[1], map[string]string{"app.kubernetes.io/name": "opentelemetry-collector", "app.kubernetes.io/instance": "otel-collector"}),
	}
	elsewhere := outside("default", map[string]string{"app.kubernetes.io/name": "opentelemetry-collector"})
	for name := range programs {
		d := find[appsv1.Deployment](t, objs, name)
		c := d.Spec.Template.Spec.Containers[0]
		if c.Name != name {
			t.Fatalf("the first container of %s is %q: the component patches the server container", name, c.Name)
		}
		reads := false
		for _, src := range c.EnvFrom {
			reads = reads || src.ConfigMapRef != nil && src.ConfigMapRef.Name == cm.Name
		}
		if !reads {
			t.Errorf("%s does not read the tracing ConfigMap %s: %+v", name, cm.Name, c.EnvFrom)
		}
		pod := kube.PodOf(d.Namespace, d.Spec.Template)
		for _, collector := range collectors {
			if ok, err := kube.Allowed(policies, pod, collector, int32(port)); err != nil || !ok {
				t.Errorf("%s cannot reach the collector %v at %s (err %v)", name, collector.Labels, endpoint, err)
			}
			if ok, _ := kube.Allowed(policies, pod, collector, int32(port)+1); ok {
				t.Errorf("%s reaches the collector's namespace on another port", name)
			}
		}
		if ok, _ := kube.Allowed(policies, pod, elsewhere, int32(port)); ok {
			t.Errorf("%s reaches a collector's port in another namespace", name)
		}
	}
}

func TestTheOverlaysTraceNothingUntilTheyTakeTheComponent(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		for _, d := range kube.All[appsv1.Deployment](mustRender(t, overlay)) {
			for _, c := range d.Spec.Template.Spec.Containers {
				for _, src := range c.EnvFrom {
					if src.ConfigMapRef != nil && strings.HasPrefix(src.ConfigMapRef.Name, "tracing") {
						t.Errorf("%s: %s reads %s without the tracing component", overlay, d.Name, src.ConfigMapRef.Name)
					}
				}
			}
		}
	}
}
