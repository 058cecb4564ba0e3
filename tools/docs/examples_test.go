package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goBlock is a fenced Go block of a Markdown file: its first line names the
// file it quotes, the rest is the quote.
var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// TestGoCodeInTheDocsIsCompiledCode keeps every Go example of the docs
// compiling: a ```go block must start with "// From <path>" naming a Go file
// of the repository (a program's own code, or an Example test), and the
// rest of the block must appear in that file as it is. The build compiles
// the file and go test runs its Examples, so the docs cannot drift from code
// that compiles.
func TestGoCodeInTheDocsIsCompiledCode(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	blocks := 0
	for path, text := range textFiles(t, root) {
		if filepath.Ext(path) != ".md" {
			continue
		}
		for _, m := range goBlock.FindAllStringSubmatch(text, -1) {
			blocks++
			first, quote, _ := strings.Cut(m[1], "\n")
			source, ok := strings.CutPrefix(first, "// From ")
			if !ok || filepath.Ext(source) != ".go" {
				t.Errorf("%s: a Go block starts with %q; start it with \"// From <path of the Go file it quotes>\"", path, first)
				continue
			}
			code, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(source)))
			if err != nil {
				t.Errorf("%s: the Go block quotes %s: %v", path, source, err)
				continue
			}
			if !strings.Contains(string(code), quote) {
				t.Errorf("%s: the Go block is not a quote of %s as it is now:\n%s", path, source, quote)
			}
		}
	}
	if blocks == 0 {
		t.Fatal("no Go block found in the docs: the walk missed them")
	}
}
