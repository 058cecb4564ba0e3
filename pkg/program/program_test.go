package program_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/program"
)

func TestRunReportsTheOutcomeAsAnExitStatus(t *testing.T) {
	t.Parallel()
	var stderr strings.Builder
	var got []string
	ok := func(_ context.Context, args []string) error { got = args; return nil }
	if code := program.Run(context.Background(), "jobs", []string{"migrate", "-create-database"}, &stderr, ok); code != 0 || stderr.Len() != 0 {
		t.Fatalf("success: code %d, stderr %q", code, stderr.String())
	}
	if strings.Join(got, " ") != "migrate -create-database" {
		t.Fatalf("args = %v", got)
	}
	fail := func(context.Context, []string) error { return errors.New("DATABASE_URL is empty") }
	if code := program.Run(context.Background(), "jobs", nil, &stderr, fail); code != 1 || stderr.String() != "jobs: DATABASE_URL is empty\n" {
		t.Fatalf("failure: code %d, stderr %q", code, stderr.String())
	}
}

// Help is answered, not run: a command configured by its environment
// alone prints where its settings are and refuses other arguments (the
// gateway once started on its default ports for "gateway -h"), and a
// command with subcommands lists them.
func TestHelpIsAnsweredAndAStrayArgumentRefused(t *testing.T) {
	t.Parallel()
	ran := false
	envOnly := program.EnvOnly("gateway/README.md", func(context.Context) error { ran = true; return nil })
	for _, help := range []string{"-h", "-help", "--help", "help"} {
		var stderr strings.Builder
		if code := program.Run(context.Background(), "gateway", []string{help}, &stderr, envOnly); code != 0 || ran ||
			!strings.HasPrefix(stderr.String(), "usage: gateway\n") || !strings.Contains(stderr.String(), "gateway/README.md") {
			t.Fatalf("gateway %s: code %d, ran %v, stderr %q", help, code, ran, stderr.String())
		}
	}
	var stderr strings.Builder
	if code := program.Run(context.Background(), "gateway", []string{"serve"}, &stderr, envOnly); code != 1 || ran {
		t.Fatalf("gateway serve: code %d, ran %v, stderr %q", code, ran, stderr.String())
	}
	if code := program.Run(context.Background(), "gateway", nil, &stderr, envOnly); code != 0 || !ran {
		t.Fatalf("gateway without arguments: code %d, ran %v", code, ran)
	}

	commands := func(ctx context.Context, args []string) error {
		return program.Commands(ctx, args, map[string]program.RunFunc{
			"serve":   func(context.Context, []string) error { return errors.New("serve ran") },
			"migrate": func(context.Context, []string) error { return errors.New("migrate ran") },
		})
	}
	stderr.Reset()
	if code := program.Run(context.Background(), "jobs", []string{"--help"}, &stderr, commands); code != 0 || !strings.HasPrefix(stderr.String(), "usage: jobs [migrate | serve]\n") {
		t.Fatalf("jobs --help: code %d, stderr %q", code, stderr.String())
	}
}
