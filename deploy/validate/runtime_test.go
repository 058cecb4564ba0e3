package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	appsv1 "k8s.io/api/apps/v1"
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
		for _, d := range kube.All[appsv1.Deployment](mustRender(t, overlay)) {
			t.Run(overlay+" "+d.Name+" sleeps in preStop within its grace period", func(t *testing.T) {
				t.Parallel()
				c := d.Spec.Template.Spec.Containers[0]
				if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
					t.Fatal("no preStop sleep (Kubernetes 1.30+)")
				}
				grace := d.Spec.Template.Spec.TerminationGracePeriodSeconds
				if grace == nil || c.Lifecycle.PreStop.Sleep.Seconds >= *grace {
					t.Errorf("preStop sleeps %ds of a %v-second grace period", c.Lifecycle.PreStop.Sleep.Seconds, grace)
				}
			})
		}
	}
}
