// Package programtest holds the checks every program's tests share: that
// its README documents its configuration (the one environment table names
// every variable the program's Config reads, nothing else, with the
// defaults the program applies), and that its app runs, answers /readyz
// and stops cleanly.
package programtest

import (
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Variable is one environment variable a Config reads.
type Variable struct {
	// Name is the variable's name.
	Name string
	// Default is the value the program uses when the variable is unset.
	Default string
	// HasDefault tells an empty default from none.
	HasDefault bool
}

// Variables returns the environment variables cfg (a Config struct or a
// pointer to one) reads through its env tags, nested structs included, with
// their defaults; defaults holds the program's own defaults of shared
// variables, which win over the tags' (as program.LoadConfig applies them).
func Variables(cfg any, defaults map[string]string) map[string]Variable {
	out := map[string]Variable{}
	collect(reflect.TypeOf(cfg), out)
	for name, v := range defaults {
		if _, ok := out[name]; ok {
			out[name] = Variable{Name: name, Default: v, HasDefault: true}
		}
	}
	return out
}

// collect adds the variables of struct type t to out.
func collect(t reflect.Type, out map[string]Variable) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for f := range t.Fields() {
		tag, tagged := f.Tag.Lookup("env")
		name, opts, _ := strings.Cut(tag, ",")
		name = strings.TrimSpace(name)
		switch {
		case name != "":
			v := Variable{Name: name}
			// default= is the last option and keeps any commas of its value.
			if i := strings.Index(opts, "default="); i >= 0 {
				v.Default, v.HasDefault = opts[i+len("default="):], true
			}
			out[name] = v
		case tagged && strings.Contains(opts, "noinit"):
			// Set by code, not read from the environment.
		case f.IsExported():
			collect(f.Type, out)
		}
	}
}

// row is one variable of a README's environment table.
type row struct {
	line int
	// value is the documented default when it is a literal in backticks;
	// described is set instead when words describe it ("none", "issuer +
	// /certs").
	value     string
	described bool
}

var (
	codeSpan = regexp.MustCompile("`([^`]*)`")
	varName  = regexp.MustCompile("^[A-Z][A-Z0-9_]*$")
	literal  = regexp.MustCompile("^`([^`]*)`$")
)

// cells splits a Markdown table row into its trimmed cells.
func cells(line string) []string {
	line = strings.TrimSpace(line)
	parts := strings.Split(strings.Trim(line, "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// splitOutsideCode splits a cell at the commas that are not inside backticks.
func splitOutsideCode(cell string) []string {
	var pieces []string
	inCode, start := false, 0
	for i, r := range cell {
		switch {
		case r == '`':
			inCode = !inCode
		case r == ',' && !inCode:
			pieces = append(pieces, strings.TrimSpace(cell[start:i]))
			start = i + 1
		}
	}
	return append(pieces, strings.TrimSpace(cell[start:]))
}

// envTable reads the one table of the Markdown document whose header has a
// "variable" and a "default" column: each variable named in backticks in
// the first column, with its default.
func envTable(doc string) (map[string]row, error) {
	lines := strings.Split(doc, "\n")
	var rows map[string]row
	for i := 0; i < len(lines); i++ {
		head := cells(lines[i])
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "|") || len(head) < 2 || head[0] != "variable" {
			continue
		}
		def := slices.Index(head, "default")
		if def < 0 {
			continue
		}
		if rows != nil {
			return nil, fmt.Errorf("line %d: a second environment table; keep one per program", i+1)
		}
		rows = map[string]row{}
		for i += 2; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
			c := cells(lines[i])
			if len(c) != len(head) {
				return nil, fmt.Errorf("line %d: %d cells, the header has %d", i+1, len(c), len(head))
			}
			var names []string
			for _, m := range codeSpan.FindAllStringSubmatch(c[0], -1) {
				if !varName.MatchString(m[1]) {
					return nil, fmt.Errorf("line %d: %q is not a variable name; spell every variable out", i+1, m[1])
				}
				names = append(names, m[1])
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("line %d: no variable in the first cell", i+1)
			}
			pieces := []string{c[def]}
			if len(names) > 1 {
				pieces = splitOutsideCode(c[def])
			}
			if len(pieces) != 1 && len(pieces) != len(names) {
				return nil, fmt.Errorf("line %d: %d defaults for %d variables", i+1, len(pieces), len(names))
			}
			for j, name := range names {
				r := row{line: i + 1}
				piece := pieces[min(j, len(pieces)-1)]
				if m := literal.FindStringSubmatch(piece); m != nil {
					r.value = m[1]
				} else {
					r.described = true
				}
				if _, dup := rows[name]; dup {
					return nil, fmt.Errorf("line %d: %s is documented twice", i+1, name)
				}
				rows[name] = r
			}
		}
	}
	if rows == nil {
		return nil, fmt.Errorf("no table with a \"variable\" and a \"default\" column")
	}
	return rows, nil
}

// CheckEnvTable fails t unless the environment table of the Markdown file
// readme documents exactly the variables cfg reads, each with its default:
// a default is written as the literal value in backticks (several
// variables of one row take one literal each, or share one); a variable
// without a default is described in words (such as "none").
func CheckEnvTable(t testing.TB, readme string, cfg any, defaults map[string]string) {
	t.Helper()
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatalf("read the README: %v", err)
	}
	problems, err := compare(string(data), cfg, defaults)
	if err != nil {
		t.Fatalf("%s: %v", readme, err)
	}
	for _, p := range problems {
		t.Errorf("%s%s", readme, p)
	}
}

// compare returns what the environment table of doc gets wrong about cfg,
// each problem starting with ":<line>: " or ": ".
func compare(doc string, cfg any, defaults map[string]string) ([]string, error) {
	rows, err := envTable(doc)
	if err != nil {
		return nil, err
	}
	vars := Variables(cfg, defaults)
	if len(vars) == 0 {
		return nil, fmt.Errorf("%T reads no environment variable", cfg)
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		v, r := vars[name], rows[name]
		switch _, ok := rows[name]; {
		case !ok:
			problems = append(problems, fmt.Sprintf(": %s is read by %T but not documented", name, cfg))
		case v.HasDefault && r.described:
			problems = append(problems, fmt.Sprintf(":%d: %s defaults to `%s`; write that value in the default column", r.line, name, v.Default))
		case v.HasDefault && r.value != v.Default:
			problems = append(problems, fmt.Sprintf(":%d: %s is documented with default `%s`, the program's is `%s`", r.line, name, r.value, v.Default))
		case !v.HasDefault && !r.described:
			problems = append(problems, fmt.Sprintf(":%d: %s is documented with default `%s`, but the program has none", r.line, name, r.value))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		if _, ok := vars[name]; !ok {
			problems = append(problems, fmt.Sprintf(":%d: %s is documented but %T does not read it", rows[name].line, name, cfg))
		}
	}
	return problems, nil
}
