package stack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/municipal-apis/platform/pkg/program"
)

// built holds the binaries compiled by this process, by program name.
var built struct {
	mu    sync.Mutex
	dir   string
	names map[string]bool
}

// binaries returns the directory holding the binaries of names, building
// those not built yet from the repository's working tree. Callers wait for
// one build; a failed build is tried again by the next caller.
func binaries(ctx context.Context, names []string) (string, error) {
	built.mu.Lock()
	defer built.mu.Unlock()
	var missing []string
	for _, n := range names {
		if !built.names[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return built.dir, nil
	}
	if built.dir == "" {
		dir, err := os.MkdirTemp("", "municipal-stack-bin-")
		if err != nil {
			return "", fmt.Errorf("binaries directory: %w", err)
		}
		built.dir, built.names = dir, map[string]bool{}
	}
	if err := build(ctx, built.dir, missing); err != nil {
		return "", err
	}
	for _, n := range missing {
		built.names[n] = true
	}
	return built.dir, nil
}

// build compiles the main packages of names into dir with one go build of
// the workspace, so local changes to pkg are picked up.
func build(ctx context.Context, dir string, names []string) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	all, err := program.ReadList(root)
	if err != nil {
		return err
	}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, n := range names {
		p, ok := find(all, n)
		if !ok {
			return fmt.Errorf("%s lists no program %q", program.ListFile, n)
		}
		args = append(args, p.Main)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(root, "go.work"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build the stack's programs: %w\n%s", err, out)
	}
	return nil
}

// find returns the program called name.
func find(all []program.Entry, name string) (program.Entry, bool) {
	for _, p := range all {
		if p.Name == name {
			return p, true
		}
	}
	return program.Entry{}, false
}

// RemoveBinaries deletes the binaries built by this process; Main calls it
// after the tests, and a program using Start should call it before exiting.
func RemoveBinaries() error {
	built.mu.Lock()
	defer built.mu.Unlock()
	dir := built.dir
	built.dir, built.names = "", nil
	if dir == "" {
		return nil
	}
	return os.RemoveAll(dir)
}
