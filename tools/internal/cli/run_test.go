package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/tools/internal/cli"
)

// result is what one run of the command printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// run executes the command in-process with env as its variables and
// stdin as its standard input.
func run(t testing.TB, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	return runContext(context.Background(), env, stdin, args...)
}

// runContext is run under ctx.
func runContext(ctx context.Context, env map[string]string, stdin string, args ...string) result {
	var out, errb bytes.Buffer
	code := cli.Main(ctx, args, cli.Env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
	})
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// want fails the test unless r exited with code and its outputs contain
// every one of contains, "stdout:"- or "stderr:"-prefixed, with runs of
// white space compared as one space.
func (r result) want(t *testing.T, code int, contains ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code = %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, c := range contains {
		stream, text := r.stdout, c
		if s, ok := strings.CutPrefix(c, "stderr:"); ok {
			stream, text = r.stderr, s
		} else if s, ok := strings.CutPrefix(c, "stdout:"); ok {
			text = s
		}
		if !strings.Contains(squash(stream), squash(text)) {
			t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", c, r.stdout, r.stderr)
		}
	}
}

// squash turns every run of white space into one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }
