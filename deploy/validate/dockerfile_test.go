package validate

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

func TestDockerfileBuildsOnStaticDistrolessAsNonRoot(t *testing.T) {
	t.Parallel()
	stages := mustStages(t)
	build, runtime := stages[0], stages[len(stages)-1]
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"the runtime base is distroless static pinned by digest", func(t *testing.T) {
			if !strings.HasPrefix(runtime.BaseName, "gcr.io/distroless/static") || !strings.Contains(runtime.BaseName, "@sha256:") {
				t.Errorf("runtime base %q", runtime.BaseName)
			}
			if err := imagePinned(runtime.BaseName); err != nil {
				t.Error(err)
			}
		}},
		{"the builder's Go is the go.work version", func(t *testing.T) {
			goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(readRepoFile(t, "go.work"))
			if goVersion == nil || !strings.HasPrefix(build.BaseName, "golang:"+goVersion[1]+"-") {
				t.Errorf("builder %q, go.work says %v", build.BaseName, goVersion)
			}
		}},
		{"the runtime runs as a numeric non-root user", func(t *testing.T) {
			users := commands[*instructions.UserCommand](runtime)
			if len(users) == 0 {
				t.Fatal("no USER in the runtime stage")
			}
			uid, _, _ := strings.Cut(users[len(users)-1].User, ":")
			if n, err := strconv.Atoi(uid); err != nil || n == 0 {
				t.Errorf("USER %q is not a numeric non-root uid", users[len(users)-1].User)
			}
		}},
		{"the entrypoint is the program in exec form", func(t *testing.T) {
			eps := commands[*instructions.EntrypointCommand](runtime)
			if len(eps) != 1 || eps[0].PrependShell || !slices.Equal(eps[0].CmdLine, []string{"/usr/local/bin/app"}) {
				t.Errorf("entrypoint %+v, want exec form /usr/local/bin/app", eps)
			}
		}},
		{"the runtime copies the program and the probe from the build stage", func(t *testing.T) {
			var dests []string
			for _, c := range commands[*instructions.CopyCommand](runtime) {
				if c.From == build.Name {
					dests = append(dests, c.DestPath)
				}
			}
			if !slices.Equal(dests, []string{"/usr/local/bin/app", "/usr/local/bin/probe"}) {
				t.Errorf("copies from %s into %v", build.Name, dests)
			}
			if !strings.Contains(runScript(build), "cd /src/deploy") || !strings.Contains(runScript(build), "-o /out/probe ./cmd/probe") {
				t.Error("the build stage does not build deploy/cmd/probe")
			}
		}},
		{"the binary is static and stamped with the version", func(t *testing.T) {
			var cgo string
			for _, e := range commands[*instructions.EnvCommand](build) {
				for _, kv := range e.Env {
					if kv.Key == "CGO_ENABLED" {
						cgo = kv.Value
					}
				}
			}
			if cgo != "0" {
				t.Errorf("CGO_ENABLED=%q in the build stage", cgo)
			}
			if !declaresArg(build, "VERSION") || !strings.Contains(runScript(build), "-X github.com/municipal-apis/platform/pkg/version.Version=${VERSION}") {
				t.Error("the version is not stamped from ARG VERSION")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t)
		})
	}
}

func TestDockerignoreKeepsSourcesAndDropsTheRest(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join(repoRoot(t), ".dockerignore"))
	if err != nil {
		t.Fatalf("open .dockerignore: %v", err)
	}
	defer f.Close()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		t.Fatalf("read .dockerignore: %v", err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatalf("compile .dockerignore: %v", err)
	}
	tests := []struct {
		path     string
		excluded bool
	}{
		{"pkg/go.mod", false},
		{"pkg/go.sum", false},
		{"gateway/go.mod", false},
		{"services/search-admin/go.mod", false},
		{"services/jobs/go.sum", false},
		{"deploy/go.mod", false},
		{"deploy/cmd/probe/main.go", false},
		{"pkg/version/version.go", false},
		{"pkg/devidp/realm-municipal.json", false},
		{"services/search-admin/migrations/00001_servicos.sql", false},
		{".git/HEAD", true},
		{"k8s/base/kustomization.yaml", true},
		{"docker-compose.yml", true},
		{"bin/gateway", true},
		{"pkg/problem/decode_test.go", true},
		{"services/jobs/.env", true},
		{"deploy/compose/postgres-init.sql", true},
	}
	for _, tt := range tests {
		name := tt.path + " is sent to the build"
		if tt.excluded {
			name = tt.path + " stays out of the build"
		}
		// Sequential: a PatternMatcher compiles its patterns lazily and is not safe for concurrent use.
		t.Run(name, func(t *testing.T) {
			excluded, err := pm.MatchesOrParentMatches(tt.path)
			if err != nil {
				t.Fatalf("match: %v", err)
			}
			if excluded != tt.excluded {
				t.Errorf("excluded = %v, want %v", excluded, tt.excluded)
			}
		})
	}
}
