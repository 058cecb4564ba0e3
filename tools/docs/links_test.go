package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot returns the monorepo root, two levels above this package.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		t.Fatalf("repo root %s has no go.work: %v", root, err)
	}
	return root
}

// textFiles returns the path and content of every file of the repository a
// reader or a reference could be in: code, docs, configuration and scripts.
func textFiles(t testing.TB, root string) map[string]string {
	t.Helper()
	exts := map[string]bool{".go": true, ".md": true, ".json": true, ".yaml": true, ".yml": true, ".sh": true, ".sql": true}
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") && name != ".ci" || name == "bin" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !exts[filepath.Ext(path)] && d.Name() != "Makefile" && d.Name() != "Dockerfile" && filepath.Base(filepath.Dir(path)) != ".ci" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// anchor is the fragment GitHub gives a Markdown heading.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the fragments of every heading of a Markdown file.
func anchors(t testing.TB, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#{1,6} (.+)$`).FindAllStringSubmatch(string(data), -1) {
		out[anchor(m[1])] = true
	}
	return out
}

func TestReferencesToTheDecisionsNameSectionsThatExist(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	sections := anchors(t, filepath.Join(root, "docs", "decisions.md"))
	ref := regexp.MustCompile(`decisions\.md#([A-Za-z0-9_-]+)`)
	outside := regexp.MustCompile(`DECISIONS(\.md)?\s*§|DECISIONS\.md`)
	found := 0
	for path, text := range textFiles(t, root) {
		for _, m := range ref.FindAllStringSubmatch(text, -1) {
			found++
			if !sections[m[1]] {
				t.Errorf("%s points at docs/decisions.md#%s, which has no such section", path, m[1])
			}
		}
		if loc := outside.FindStringIndex(text); loc != nil {
			t.Errorf("%s cites %q, a file that is not in the repository; point at docs/decisions.md", path, text[loc[0]:loc[1]])
		}
	}
	if found == 0 {
		t.Fatal("no reference to docs/decisions.md found: the walk missed the repository")
	}
}

func TestHeadingAnchorsFollowGitHub(t *testing.T) {
	t.Parallel()
	tests := []struct{ heading, want string }{
		{"Realm, clients and scopes", "realm-clients-and-scopes"},
		{"The API document", "the-api-document"},
		{"Choices where the API document is silent", "choices-where-the-api-document-is-silent"},
		{"`make test-short`", "make-test-short"},
	}
	for _, tt := range tests {
		if got := anchor(tt.heading); got != tt.want {
			t.Errorf("anchor(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}
