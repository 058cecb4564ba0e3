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
