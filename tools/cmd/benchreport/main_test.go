package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRealMainRefusesBeforeRunningAnything(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"a run outside the repository root", nil, "run from the repository root"},
		{"an unknown flag", []string{"-benchtime", "1x"}, "flag provided but not defined"},
		{"a malformed duration", []string{"-load-duration", "soon"}, "invalid value"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			t.Parallel()
			var log bytes.Buffer
			err := realMain(context.Background(), tt.args, &log)
			if err == nil || !strings.Contains(err.Error()+log.String(), tt.says) {
				t.Fatalf("error %v, log %q; want one saying %q", err, log.String(), tt.says)
			}
		})
	}
}
