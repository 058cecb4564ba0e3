// Package hostiletest loads the hostile-input cases of testdata/hostile (at
// the root of the repository) for table tests and fuzz seed corpora: request
// bodies, search queries, request paths and access tokens, each with what the
// answer must be.
package hostiletest

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Dir returns the testdata/hostile folder of the repository that holds the
// current directory, found by walking up to the folder with go.work.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return filepath.Join(dir, "testdata", "hostile")
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatal("no go.work above the current directory: cannot find testdata/hostile")
		}
		dir = up
	}
}

// Load decodes the JSON array of cases in file (say "paths.json") into v.
func Load(tb testing.TB, file string, v any) {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(Dir(tb), file))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
}

// MaxSeedBytes bounds the cases a fuzz target takes as seeds: the engine
// mutates every seed it keeps, and a few megabyte-sized ones slow it to a
// crawl. The table tests send the larger cases.
const MaxSeedBytes = 4 << 10

// Request is one request of a case: a method, a path and a body.
type Request struct {
	Method, Path string
	Body         []byte
}

// Body is one case of json-bodies.json: a request whose body is hostile.
type Body struct {
	Request
	// ID is the {id} of a PUT path as written ("<existing id>", "-1"); the
	// test resolves placeholders, written in angle brackets.
	ID string
	// Setup are requests to make first.
	Setup  []Request
	Expect string
	Why    string
}

// Name is a short name of the case for t.Run.
func (b Body) Name() string {
	name := b.Method + " " + b.Path
	if b.ID != "" {
		name += " (id " + b.ID + ")"
	}
	return name + ": " + b.Why
}

// Allowed returns the statuses the case's expect text allows: every status
// it names that is not preceded by "never". Nil when it names none.
func (b Body) Allowed() []int { return Allowed(b.Expect) }

var statusRE = regexp.MustCompile(`(?i)(never\s+)?\b([1-5][0-9][0-9])\b`)

// Allowed returns the statuses an expect text allows: every status it
// names that is not preceded by "never".
func Allowed(expect string) []int {
	var out []int
	for _, m := range statusRE.FindAllStringSubmatch(expect, -1) {
		if m[1] != "" {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// rawBody is a case of json-bodies.json as written.
type rawBody struct {
	Op     string          `json:"op"`
	ID     json.RawMessage `json:"id"`
	Setup  []string        `json:"setup"`
	Body   json.RawMessage `json:"body"`
	Expect string          `json:"expect"`
	Why    string          `json:"why"`
}

// Bodies returns the cases of json-bodies.json whose path starts with one
// of prefixes, one case per {id} when a case lists several.
func Bodies(tb testing.TB, prefixes ...string) []Body {
	tb.Helper()
	var raw []rawBody
	Load(tb, "json-bodies.json", &raw)
	var out []Body
	for i, r := range raw {
		method, path, _ := strings.Cut(r.Op, " ")
		if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(path, p) }) {
			continue
		}
		body, err := buildBody(r.Body)
		if err != nil {
			tb.Fatalf("json-bodies.json case %d: %v", i, err)
		}
		c := Body{Request: Request{Method: method, Path: path, Body: body}, Expect: r.Expect, Why: r.Why}
		for _, s := range r.Setup {
			op, sbody, _ := strings.Cut(s, " {")
			m, p, _ := strings.Cut(op, " ")
			c.Setup = append(c.Setup, Request{Method: m, Path: p, Body: []byte("{" + sbody)})
		}
		ids, err := idsOf(r.ID)
		if err != nil {
			tb.Fatalf("json-bodies.json case %d: %v", i, err)
		}
		if len(ids) == 0 {
			out = append(out, c)
		}
		for _, id := range ids {
			c.ID = id
			out = append(out, c)
		}
	}
	return out
}

// idsOf reads the id of a case: absent, one value or a list of values.
func idsOf(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var many []any
	if json.Unmarshal(raw, &many) != nil {
		many = nil
		var one any
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		many = []any{one}
	}
	out := make([]string, len(many))
	for i, v := range many {
		out[i] = fmt.Sprint(v)
	}
	return out, nil
}

// buildBody turns the body of a case into bytes: a string is literal; an
// object holds hex bytes or a template (see testdata/hostile/README.md).
func buildBody(raw json.RawMessage) ([]byte, error) {
	var literal string
	if json.Unmarshal(raw, &literal) == nil {
		return []byte(literal), nil
	}
	var spec struct {
		Hex      *string `json:"hex"`
		Template string  `json:"template"`
		Depth    int     `json:"nest_depth"`
		Open     string  `json:"open"`
		Close    string  `json:"close"`
		Leaf     string  `json:"leaf"`
		Repeat   string  `json:"repeat"`
		Count    int     `json:"count"`
		Sep      string  `json:"sep"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, err
	}
	switch {
	case spec.Hex != nil:
		return hex.DecodeString(*spec.Hex)
	case spec.Depth > 0:
		return []byte(strings.Replace(spec.Template, "@@", Nest(spec.Depth, spec.Open, spec.Close, spec.Leaf), 1)), nil
	case spec.Count > 0:
		items := make([]string, spec.Count)
		for i := range items {
			items[i] = strings.ReplaceAll(spec.Repeat, "{i}", strconv.Itoa(i))
		}
		return []byte(strings.Replace(spec.Template, "@@", strings.Join(items, spec.Sep), 1)), nil
	}
	return nil, errors.New("a body object needs hex, nest_depth or count")
}

// Nest returns open n times, leaf, then close n times.
func Nest(n int, open, close, leaf string) string {
	return strings.Repeat(open, n) + leaf + strings.Repeat(close, n)
}

// Query is one case of search-queries.json.
type Query struct {
	// Q is the decoded search text.
	Q string `json:"q"`
	// Raw, when set, is the exact query string to send instead of q=Q.
	Raw    string `json:"q_urlencoded"`
	Expect string `json:"expect"`
	Why    string `json:"why"`
}

// Queries returns the cases of search-queries.json.
func Queries(tb testing.TB) []Query {
	tb.Helper()
	var out []Query
	Load(tb, "search-queries.json", &out)
	return out
}

// Path is one case of paths.json.
type Path struct {
	Path   string `json:"path"`
	Method string `json:"method"`
	Form   string `json:"form"`
	Expect string `json:"expect"`
	Why    string `json:"why"`
}

// Paths returns the cases of paths.json.
func Paths(tb testing.TB) []Path {
	tb.Helper()
	var out []Path
	Load(tb, "paths.json", &out)
	return out
}
