package app

import (
	"testing"

	"github.com/municipal-apis/platform/pkg/program/programtest"
)

// TestTheREADMEDocumentsEveryVariable keeps the environment table of
// devidp's README true: every variable Config reads, none other, the defaults.
func TestTheREADMEDocumentsEveryVariable(t *testing.T) {
	t.Parallel()
	programtest.CheckEnvTable(t, "../../../../devidp/README.md", Config{}, nil)
}
