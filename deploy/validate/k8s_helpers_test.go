package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// programs are the servers every overlay runs, with the port each listens on.
var programs = map[string]int32{"gateway": 8080, "search-admin": 8081, "jobs": 8082}

// workload is a pod template of a Deployment or a Job.
type workload struct {
	kind, name, namespace string
	template              corev1.PodTemplateSpec
}

func workloads(objs []kube.Object) []workload {
	var out []workload
	for _, d := range kube.All[appsv1.Deployment](objs) {
		out = append(out, workload{"Deployment", d.Name, d.Namespace, d.Spec.Template})
	}
	for _, j := range kube.All[batchv1.Job](objs) {
		out = append(out, workload{"Job", j.Name, j.Namespace, j.Spec.Template})
	}
	return out
}

// find returns the object of type T called name.
func find[T any](t *testing.T, objs []kube.Object, name string) *T {
	t.Helper()
	for _, o := range objs {
		if v, ok := o.Value.(*T); ok && o.Name == name {
			return v
		}
	}
	var zero T
	t.Fatalf("no %T called %q", zero, name)
	return nil
}

// configMap returns the ConfigMap generated from the name base, whatever its hash suffix.
func configMap(t *testing.T, objs []kube.Object, base string) *corev1.ConfigMap {
	t.Helper()
	for _, cm := range kube.All[corev1.ConfigMap](objs) {
		if cm.Name == base || strings.HasPrefix(cm.Name, base+"-") && !strings.Contains(cm.Name[len(base)+1:], "-") {
			return cm
		}
	}
	t.Fatalf("no ConfigMap generated from %q", base)
	return nil
}

// imagePinned reports why image is not pinned to a fixed version, or nil.
func imagePinned(image string) error {
	if _, digest, ok := strings.Cut(image, "@"); ok {
		if !strings.HasPrefix(digest, "sha256:") || len(digest) != len("sha256:")+64 {
			return fmt.Errorf("image %q has a malformed digest", image)
		}
		return nil
	}
	slash := strings.LastIndex(image, "/")
	colon := strings.LastIndex(image, ":")
	if colon <= slash {
		return fmt.Errorf("image %q has no tag", image)
	}
	if tag := image[colon+1:]; tag == "latest" || tag == "" {
		return fmt.Errorf("image %q uses a moving tag", image)
	}
	return nil
}

// looksSecret reports whether an environment variable of this name holds a credential.
func looksSecret(name string) bool {
	for _, s := range []string{"PASSWORD", "SECRET", "TOKEN", "API_KEY", "DATABASE_URL", "REDIS_URL"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}
