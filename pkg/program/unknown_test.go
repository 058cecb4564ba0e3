package program_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/program"
)

type limits struct {
	PerClient string `env:"RATE_LIMIT_PER_CLIENT, default=600-M"`
	Inner     struct {
		Addr string `env:"HTTP_ADDR"`
	}
}

// A gateway started with RATE_LIMT_PER_CLIENT=5-M kept the default limit,
// ready and without a word.
func TestWarnMisspeltNamesTheSettingAVariableIsCloseTo(t *testing.T) {
	t.Setenv("RATE_LIMT_PER_CLIENT", "5-M")
	t.Setenv("HTTP_ADRR", ":1")
	t.Setenv("RATE_LIMIT_PER_CLIENT", "5-M") // a setting: no warning
	t.Setenv("PAGER", "less")                // far from any: no warning
	t.Setenv("HTTP_PORT", "80")              // two edits from a short name: another word
	var out bytes.Buffer
	program.WarnMisspelt(context.Background(), slog.New(slog.NewTextHandler(&out, nil)), limits{})
	got := out.String()
	for _, want := range []string{"variable=RATE_LIMT_PER_CLIENT did_you_mean=RATE_LIMIT_PER_CLIENT", "variable=HTTP_ADRR did_you_mean=HTTP_ADDR"} {
		if !strings.Contains(got, want) {
			t.Errorf("no warning %q in:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "level=WARN"); n != 2 {
		t.Errorf("%d warnings, want 2:\n%s", n, got)
	}
}
