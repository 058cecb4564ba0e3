package validate

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// parseDockerfile parses the root Dockerfile with BuildKit's own parser.
var parseDockerfile = sync.OnceValues(func() ([]instructions.Stage, error) {
	f, err := os.Open(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ast, err := parser.Parse(f)
	if err != nil {
		return nil, err
	}
	stages, _, err := instructions.Parse(ast.AST, nil)
	return stages, err
})

func mustStages(t *testing.T) []instructions.Stage {
	t.Helper()
	stages, err := parseDockerfile()
	if err != nil {
		t.Fatalf("parse Dockerfile: %v", err)
	}
	if len(stages) < 2 {
		t.Fatalf("%d stages, want a build stage and a runtime stage", len(stages))
	}
	return stages
}

// commands returns the commands of stage that are a T.
func commands[T instructions.Command](stage instructions.Stage) []T {
	var out []T
	for _, c := range stage.Commands {
		if v, ok := c.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// runScript joins every RUN command line of stage.
func runScript(stage instructions.Stage) string {
	var b strings.Builder
	for _, r := range commands[*instructions.RunCommand](stage) {
		b.WriteString(strings.Join(r.CmdLine, " "))
		b.WriteString("\n")
	}
	return b.String()
}

// declaresArg reports whether stage declares ARG name.
func declaresArg(stage instructions.Stage, name string) bool {
	for _, a := range commands[*instructions.ArgCommand](stage) {
		for _, kv := range a.Args {
			if kv.Key == name {
				return true
			}
		}
	}
	return false
}

// submatches returns the first two groups of every match of re in text, as a map.
func submatches(re *regexp.Regexp, text string) map[string]string {
	out := map[string]string{}
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out[m[1]] = m[2]
	}
	return out
}

func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), rel))
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return string(data)
}
