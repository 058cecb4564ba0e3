package program

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ListFile is the one list of the repository's programs, at its root: a
// line "name module main-package" per program, # starting a comment. The
// Makefile, the Dockerfile and pkg/stack read it.
const ListFile = "programs.txt"

// Entry is one program of ListFile.
type Entry struct {
	Name   string // binary name, e.g. "jobs"
	Module string // directory of its go.mod from the root, e.g. "services/jobs"
	Main   string // main package from the root, e.g. "./services/jobs/cmd/jobs"
}

// ReadList reads ListFile in the repository at root.
func ReadList(root string) ([]Entry, error) {
	f, err := os.Open(filepath.Join(root, ListFile))
	if err != nil {
		return nil, fmt.Errorf("the list of programs: %w", err)
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		switch fields := strings.Fields(text); len(fields) {
		case 0:
		case 3:
			out = append(out, Entry{Name: fields[0], Module: fields[1], Main: fields[2]})
		default:
			return nil, fmt.Errorf("%s:%d: want \"name module main-package\", got %q", ListFile, line, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", ListFile, err)
	}
	return out, nil
}
