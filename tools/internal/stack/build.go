package stack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// mainPackages are the programs' main packages, relative to the repository root.
var mainPackages = []string{
	"./pkg/cmd/devidp",
	"./services/search-admin/cmd/search-admin",
	"./services/jobs/cmd/jobs",
	"./gateway/cmd/gateway",
}

// built holds the binaries, compiled once per process.
var built struct {
	mu  sync.Mutex
	dir string
}

// binaries returns the directory holding every program's binary, building
// them on first use from the repository's working tree. Callers wait for
// one build; a failed build is tried again by the next caller.
func binaries(ctx context.Context) (string, error) {
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.dir != "" {
		return built.dir, nil
	}
	dir, err := build(ctx)
	if err != nil {
		return "", err
	}
	built.dir = dir
	return dir, nil
}

// build compiles every main package into a new temporary directory with one
// go build of the workspace, so local changes to pkg are picked up.
func build(ctx context.Context) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "municipal-stack-bin-")
	if err != nil {
		return "", fmt.Errorf("binaries directory: %w", err)
	}
	args := append([]string{"build", "-o", dir + string(filepath.Separator)}, mainPackages...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(root, "go.work"))
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("go build the stack's programs: %w\n%s", err, out)
	}
	return dir, nil
}

// RemoveBinaries deletes the binaries built by this process; Main calls it
// after the tests, and a program using Start should call it before exiting.
func RemoveBinaries() error {
	built.mu.Lock()
	defer built.mu.Unlock()
	dir := built.dir
	built.dir = ""
	if dir == "" {
		return nil
	}
	return os.RemoveAll(dir)
}
