package stack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// repoRoot returns the nearest directory at or above the working directory
// that holds go.work: the root of the monorepo.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.work at or above the working directory; run from inside the repository")
		}
		dir = parent
	}
}
