package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// importFlags configure a bulk import.
type importFlags struct {
	resource    string
	concurrency int
	noProgress  bool
}

// importCommand creates one resource per line of a JSON Lines file.
func (a *app) importCommand() *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import FILE.jsonl",
		Short: "Create one resource per line of a JSON Lines file, continuing past failures",
		Long: "import POSTs every non-blank line of FILE.jsonl (- reads standard input) with --concurrency\n" +
			"requests in flight, shows a progress bar on standard error and prints a summary of the\n" +
			"outcomes by status and of every failed line. The resource comes from --resource or from the\n" +
			"file name (servicos.jsonl imports servicos). Each line is sent with an Idempotency-Key derived\n" +
			"from the resource, its line number and its content, so running the same file again after an\n" +
			"interruption does not create the lines that already went through. Ctrl-C stops reading and lets\n" +
			"the requests in flight end; a second Ctrl-C ends the command at once. Exit status 1 when any failed.",
		Example: "  municipal import servicos.jsonl\n  municipal import --resource empregos --concurrency 8 vagas-2025.jsonl",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := importResource(f.resource, args[0])
			if err != nil {
				return err
			}
			if f.concurrency < 1 || f.concurrency > 64 {
				return usagef("--concurrency must be between 1 and 64")
			}
			return a.runImport(cmd, r, args[0], f)
		},
	}
	cmd.Flags().StringVar(&f.resource, "resource", "", "resource to create: "+resourceNames()+" (default: from the file name)")
	cmd.Flags().IntVar(&f.concurrency, "concurrency", 4, "requests in flight")
	cmd.Flags().BoolVar(&f.noProgress, "no-progress", false, "do not draw the progress bar")
	return cmd
}

// importResource picks the resource named by flag, else the one the file
// name starts with.
func importResource(flag, path string) (resource, error) {
	if flag != "" {
		r, ok := findResource(flag)
		if !ok {
			return r, usagef("--resource %q: use one of %s", flag, resourceNames())
		}
		return r, nil
	}
	base := strings.ToLower(filepath.Base(path))
	for _, r := range resources {
		if strings.HasPrefix(base, r.name) {
			return r, nil
		}
	}
	return resource{}, usagef("cannot tell the resource from the file name %q; set --resource (%s)", path, resourceNames())
}

func resourceNames() string {
	names := make([]string, len(resources))
	for i, r := range resources {
		names[i] = r.name
	}
	return strings.Join(names, ", ")
}

// openInput opens path, or standard input for "-"; lines is the number of
// non-blank lines of a file, -1 for standard input.
func (a *app) openInput(path string) (in io.Reader, lines int64, closeFn func(), err error) {
	if path == "-" {
		return a.env.Stdin, -1, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, nil, err
	}
	n, err := countLines(f)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, 0, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return f, n, func() { f.Close() }, nil
}
