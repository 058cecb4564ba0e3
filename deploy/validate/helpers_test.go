package validate

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	corev1 "k8s.io/api/core/v1"
)

// repoRoot returns the monorepo root, two levels above this package.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatalf("repo root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		t.Fatalf("repo root %s has no go.work: %v", root, err)
	}
	return root
}

// overlays are the environments, each rendered once per test binary.
var overlays = map[string]func() ([]kube.Object, error){
	"staging":    sync.OnceValues(func() ([]kube.Object, error) { return kube.Render(overlayDir("staging")) }),
	"production": sync.OnceValues(func() ([]kube.Object, error) { return kube.Render(overlayDir("production")) }),
}

func overlayDir(name string) string {
	return filepath.Join("..", "..", "k8s", "overlays", name)
}

// renderStagingVariant renders a variant of the staging overlay from a
// temporary folder holding a copy of the overlay's files named in files
// (every file when nil) and the kustomization.yaml that kustomization
// returns, given the path of the repository's k8s folder relative to that
// folder (kustomize refuses absolute paths).
func renderStagingVariant(t *testing.T, files []string, kustomization func(k8s string) string) []kube.Object {
	t.Helper()
	dir := t.TempDir()
	if files == nil {
		entries, err := os.ReadDir(overlayDir("staging"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			files = append(files, e.Name())
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(overlayDir("staging"), f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	abs, err := filepath.Abs(filepath.Join("..", "..", "k8s"))
	if err != nil {
		t.Fatal(err)
	}
	k8s, err := filepath.Rel(dir, abs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(kustomization(k8s)), 0o600); err != nil {
		t.Fatal(err)
	}
	objs, err := kube.Render(dir)
	if err != nil {
		t.Fatalf("render a variant of staging: %v", err)
	}
	return objs
}

// mustRender returns the strictly decoded objects of an overlay.
func mustRender(t testing.TB, overlay string) []kube.Object {
	t.Helper()
	render, ok := overlays[overlay]
	if !ok {
		t.Fatalf("no overlay %q", overlay)
	}
	objs, err := render()
	if err != nil {
		t.Fatalf("render %s: %v", overlay, err)
	}
	return objs
}

// overlayNamespace decodes the overlay's namespace.yaml, the Namespace
// applied before the overlay (deploy/README.md, step 3).
func overlayNamespace(t testing.TB, overlay string) *corev1.Namespace {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(overlayDir(overlay), "namespace.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := kube.Decode(data)
	if err != nil {
		t.Fatalf("%s/namespace.yaml: %v", overlay, err)
	}
	ns, ok := o.Value.(*corev1.Namespace)
	if !ok {
		t.Fatalf("%s/namespace.yaml holds a %s", overlay, o.Kind)
	}
	return ns
}
