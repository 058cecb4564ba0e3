package validate

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/program"
)

// mustPrograms reads the one list of the programs.
func mustPrograms(t *testing.T) []program.Entry {
	t.Helper()
	list, err := program.ReadList(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 {
		t.Fatalf("%s lists no program", program.ListFile)
	}
	return list
}

func TestDockerfileProgramArgSelectsWhatTheMakefileBuilds(t *testing.T) {
	t.Parallel()
	list := mustPrograms(t)
	build := mustStages(t)[0]
	if !declaresArg(build, "PROGRAM") {
		t.Fatal("the build stage declares no ARG PROGRAM")
	}
	script := runScript(build)
	cmd := exec.Command("make", "--no-print-directory", "-n", "build")
	cmd.Dir = repoRoot(t)
	makeBuild, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n build: %v\n%s", err, makeBuild)
	}
	t.Run("the Dockerfile and the Makefile read the one list and keep none of their own", func(t *testing.T) {
		if !strings.Contains(script, program.ListFile) {
			t.Errorf("the build stage does not read %s", program.ListFile)
		}
		for _, p := range list {
			if strings.Contains(script, p.Name) {
				t.Errorf("the build stage names %s itself", p.Name)
			}
		}
		if regexp.MustCompile(`(?m)^PROG_`).MatchString(readRepoFile(t, "Makefile")) {
			t.Error("the Makefile keeps PROG_ main packages of its own")
		}
	})
	for _, p := range list {
		t.Run(p.Name+" builds from the list's main package", func(t *testing.T) {
			if want := "./" + p.Module + "/cmd/" + p.Name; p.Main != want {
				t.Errorf("main package %s, want %s (the Dockerfile builds it inside its module)", p.Main, want)
			}
			if _, err := os.Stat(filepath.Join(repoRoot(t), p.Module, "go.mod")); err != nil {
				t.Errorf("module %s of %s: %v", p.Module, p.Name, err)
			}
			if _, err := os.Stat(filepath.Join(repoRoot(t), p.Main, "main.go")); err != nil {
				t.Errorf("main package of %s: %v", p.Name, err)
			}
			if want := "-o bin/" + p.Name + " " + p.Main; !strings.Contains(string(makeBuild), want) {
				t.Errorf("make build does not run %q:\n%s", want, makeBuild)
			}
		})
	}
}

func TestEveryProgramAndTheProbeBuildWithoutTheWorkspace(t *testing.T) {
	t.Parallel()
	type build struct{ module, pkg string }
	builds := []build{{"deploy", "./cmd/probe"}}
	for _, p := range mustPrograms(t) {
		builds = append(builds, build{p.Module, "./" + strings.TrimPrefix(p.Main, "./"+p.Module+"/")})
	}
	for _, b := range builds {
		t.Run(b.module+" "+b.pkg+" resolves every import from its own go.mod and go.sum, as the Dockerfile builds it", func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("go", "list", "-deps", "-mod=readonly", b.pkg)
			cmd.Dir = filepath.Join(repoRoot(t), b.module)
			cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("GOWORK=off go list -deps %s in %s: %v\n%s", b.pkg, b.module, err, out)
			}
		})
	}
}
