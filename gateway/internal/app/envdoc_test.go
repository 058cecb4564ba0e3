package app_test

import (
	"testing"

	"github.com/municipal-apis/platform/gateway/internal/app"
	"github.com/municipal-apis/platform/pkg/program/programtest"
)

// TestTheREADMEDocumentsEveryVariable keeps the one environment table of the
// README true: every variable Config reads, none other, the defaults it applies.
func TestTheREADMEDocumentsEveryVariable(t *testing.T) {
	t.Parallel()
	programtest.CheckEnvTable(t, "../../README.md", app.Config{}, app.Defaults)
}
