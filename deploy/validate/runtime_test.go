package validate

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/pkg/telemetry"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestEveryContainerKnowsItsMemoryLimit(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		for _, d := range kube.All[appsv1.Deployment](mustRender(t, overlay)) {
			spec := d.Spec.Template.Spec
			for _, c := range append(spec.InitContainers, spec.Containers...) {
				t.Run(fmt.Sprintf("%s %s container %s sets GOMEMLIMIT from its own limit", overlay, d.Name, c.Name), func(t *testing.T) {
					t.Parallel()
					e := envOf(t, c, "GOMEMLIMIT")
					if e.ValueFrom == nil || e.ValueFrom.ResourceFieldRef == nil {
						t.Fatalf("GOMEMLIMIT = %+v, want the downward API", e)
					}
					ref := e.ValueFrom.ResourceFieldRef
					if ref.Resource != "limits.memory" || ref.ContainerName != c.Name {
						t.Errorf("GOMEMLIMIT reads %s of container %q, want limits.memory of %q", ref.Resource, ref.ContainerName, c.Name)
					}
					if _, ok := c.Resources.Limits["memory"]; !ok {
						t.Error("no memory limit to read")
					}
				})
			}
		}
	}
}

func TestProductionRunsImagesByDigest(t *testing.T) {
	t.Parallel()
	for _, w := range workloads(mustRender(t, "production")) {
		for _, c := range append(w.template.Spec.InitContainers, w.template.Spec.Containers...) {
			if _, digest, ok := strings.Cut(c.Image, "@"); !ok || imagePinned(c.Image) != nil || !strings.HasPrefix(digest, "sha256:") {
				t.Errorf("%s %s container %s runs %s, not pinned by digest", w.kind, w.name, c.Name, c.Image)
			}
		}
	}
}

func TestServersPauseBeforeStopping(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		objs := mustRender(t, overlay)
		for _, d := range kube.All[appsv1.Deployment](objs) {
			t.Run(overlay+" "+d.Name+" drains within its grace period", func(t *testing.T) {
				t.Parallel()
				c := d.Spec.Template.Spec.Containers[0]
				if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
					t.Fatal("no preStop sleep (Kubernetes 1.30+)")
				}
				grace := d.Spec.Template.Spec.TerminationGracePeriodSeconds
				if grace == nil {
					t.Fatal("no grace period")
				}
				// After the pause: the drain, the linger of a connection
				// closed at its end, and the flush of the spans not yet
				// exported, each at its bound.
				pause := time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
				need := pause + shutdownTimeout(t, objs, c) + server.LingerTime + telemetry.ShutdownTimeout
				if have := time.Duration(*grace) * time.Second; have < need {
					t.Errorf("a grace period of %v; the preStop pause (%v), HTTP_SHUTDOWN_TIMEOUT, the linger (%v) and the trace flush (%v) take up to %v",
						have, pause, server.LingerTime, telemetry.ShutdownTimeout, need)
				}
			})
		}
	}
}

// shutdownTimeout is the HTTP_SHUTDOWN_TIMEOUT container c runs with: its
// own env, else its ConfigMaps', else the programs' default.
func shutdownTimeout(t *testing.T, objs []kube.Object, c corev1.Container) time.Duration {
	t.Helper()
	const name = "HTTP_SHUTDOWN_TIMEOUT"
	tag, _ := reflect.TypeFor[server.Config]().FieldByName("ShutdownTimeout")
	_, v, _ := strings.Cut(tag.Tag.Get("env"), "default=")
	for _, e := range c.Env {
		if e.Name == name {
			v = e.Value
		}
	}
	for _, from := range c.EnvFrom {
		if from.ConfigMapRef == nil {
			continue
		}
		for _, cm := range kube.All[corev1.ConfigMap](objs) {
			if x, ok := cm.Data[name]; ok && cm.Name == from.ConfigMapRef.Name {
				v = x
			}
		}
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s of container %s: %v", name, c.Name, err)
	}
	return d
}
