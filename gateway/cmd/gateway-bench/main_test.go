package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestANewRunKeepsTheHandWrittenNotes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	if got := keptNotes(path); got != "" {
		t.Fatalf("notes of a missing report: %q", got)
	}
	notes := notesMarker + "\n\n## Beside nginx and HAProxy\n\n| target | req/s |\n"
	if err := os.WriteFile(path, []byte("# Gateway benchmark\n\n| old | table |\n\n"+notes), 0o600); err != nil {
		t.Fatal(err)
	}
	got := keptNotes(path)
	if !strings.HasSuffix(got, notes) || strings.Contains(got, "old") {
		t.Fatalf("kept %q, want the notes from the marker on", got)
	}
}
