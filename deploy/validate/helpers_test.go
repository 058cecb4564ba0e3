package validate

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/kube"
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
