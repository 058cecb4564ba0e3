package validate

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/pkg/telemetry"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
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

// shutdownTimeout is the HTTP_SHUTDOWN_TIMEOUT container c runs with.
func shutdownTimeout(t *testing.T, objs []kube.Object, c corev1.Container) time.Duration {
	t.Helper()
	v := containerEnv(objs, c, "HTTP_SHUTDOWN_TIMEOUT", envDefault[server.Config]("ShutdownTimeout"))
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("HTTP_SHUTDOWN_TIMEOUT of container %s: %v", c.Name, err)
	}
	return d
}

// containerEnv is the value of the variable name in container c: its own
// env, else its ConfigMaps', else def.
func containerEnv(objs []kube.Object, c corev1.Container, name, def string) string {
	v := def
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
	for _, e := range c.Env {
		if e.Name == name {
			v = e.Value
		}
	}
	return v
}

// envDefault is the default its env tag gives the field of T.
func envDefault[T any](field string) string {
	f, _ := reflect.TypeFor[T]().FieldByName(field)
	_, def, _ := strings.Cut(f.Tag.Get("env"), "default=")
	return def
}

// A service's database keeps Postgres's (and CloudNativePG's) default
// max_connections, as deploy/README.md's Cluster example does, of which
// superuser_reserved_connections are the operator's.
const postgresMaxConnections, postgresSuperuserReserved = 100, 3

func TestEveryPoolFitsItsDatabaseAtTheAutoscalersMaximum(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		objs := mustRender(t, overlay)
		for _, d := range kube.All[appsv1.Deployment](objs) {
			c := d.Spec.Template.Spec.Containers[0]
			if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "DATABASE_URL" }) {
				continue
			}
			t.Run(overlay+" "+d.Name, func(t *testing.T) {
				pool, err := strconv.Atoi(containerEnv(objs, c, "DATABASE_MAX_OPEN_CONNS", envDefault[pg.Config]("MaxOpenConns")))
				if err != nil {
					t.Fatal(err)
				}
				var replicas int32
				for _, h := range kube.All[autoscalingv2.HorizontalPodAutoscaler](objs) {
					if h.Spec.ScaleTargetRef.Kind == "Deployment" && h.Spec.ScaleTargetRef.Name == d.Name {
						replicas = h.Spec.MaxReplicas
					}
				}
				if replicas == 0 {
					t.Fatal("no autoscaler")
				}
				surge := d.Spec.Strategy.RollingUpdate.MaxSurge.IntValue() // a rollout's extra pod
				pods := int(replicas) + surge
				if have := postgresMaxConnections - postgresSuperuserReserved; pods*pool > have {
					t.Errorf("%d pods (%d replicas, %d surge) × DATABASE_MAX_OPEN_CONNS %d = %d connections; the database has %d",
						pods, replicas, surge, pool, pods*pool, have)
				}
			})
		}
	}
}
