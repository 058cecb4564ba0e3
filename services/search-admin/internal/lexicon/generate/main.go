// Command generate writes the compressed Brazilian Portuguese lexicon that
// package lexicon embeds, from a word list with one word per line (Debian's
// wbrazilian package installs one as /usr/share/dict/brazilian); run it
// through ../generate.sh, which fetches that package.
//
// Every word is lowercased and grouped by its folded form (no accents): one
// line per folded form, sorted bytewise, holding the form alone when it is
// the only spelling ("casa"), else the form followed by every spelling
// ("acao ação", "baia baia baía"). Words with anything but letters are
// left out.
package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/services/search-admin/internal/textnorm"
)

func main() {
	program.Main("generate", func(_ context.Context, args []string) error { return run(args) })
}

func run(args []string) error {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	in := fs.String("in", "/usr/share/dict/brazilian", "word list, one word per line")
	out := fs.String("out", "pt_br.txt.gz", "compressed lexicon to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	groups, err := group(f)
	if err != nil {
		return fmt.Errorf("read %s: %w", *in, err)
	}
	return write(*out, groups)
}

// group reads words and returns the spellings of each folded form.
func group(r io.Reader) (map[string][]string, error) {
	groups := map[string][]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		w := strings.ToLower(strings.TrimSpace(sc.Text()))
		if w == "" || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			continue
		}
		key := textnorm.Fold(w)
		if strings.IndexFunc(key, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 || slices.Contains(groups[key], w) {
			continue
		}
		groups[key] = append(groups[key], w)
	}
	return groups, sc.Err()
}

// write stores groups as sorted lines, gzip-compressed, in path.
func write(path string, groups map[string][]string) error {
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(zw)
	for _, k := range keys {
		spellings := groups[k]
		slices.Sort(spellings)
		line := k
		if len(spellings) > 1 || spellings[0] != k {
			line += " " + strings.Join(spellings, " ")
		}
		if _, err := w.WriteString(line + "\n"); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}
