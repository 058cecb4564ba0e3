package problem

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// MaxListed bounds the violations one 422 lists, so a body of 60,000
// unknown members gets a small answer; the detail says how many there were.
const MaxListed = 100

// Violations collects every violated field rule of a request so that one 422
// reports all of them at once (the first MaxListed of them).
type Violations struct {
	list  []FieldError
	seen  map[string]bool
	count int
}

// AddUnknownParameters records, in name order, a violation code with
// message for every parameter of q that known does not accept: every
// operation refuses the query parameters it does not read
// (docs/decisions.md).
func (v *Violations) AddUnknownParameters(q url.Values, known func(name string) bool, code, message string) {
	var unknown []string
	for name := range q {
		if !known(name) {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		v.Add(name, code, message)
	}
}

// Add records a violation of field.
func (v *Violations) Add(field, code, message string) {
	if v.seen == nil {
		v.seen = map[string]bool{}
	}
	// A violation of "agents.tool_hint" or "orgao_gestor[1]" also flags its
	// parent, so a rule on the parent does not report the same mistake again.
	// The field itself is flagged even when it is "", the path of a
	// top-level member named "".
	v.seen[field] = true
	for f := parent(field); f != ""; f = parent(f) {
		v.seen[f] = true
	}
	v.count++
	if len(v.list) < MaxListed {
		v.list = append(v.list, FieldError{Field: field, Code: code, Message: message})
	}
}

// Addf records a violation with a formatted message.
func (v *Violations) Addf(field, code, format string, args ...any) {
	v.Add(field, code, fmt.Sprintf(format, args...))
}

// Has reports whether field, or a member or item inside it, already has a
// violation, so later rules can skip a member that was, say, of the wrong type.
func (v *Violations) Has(field string) bool { return v.seen[field] }

// Len returns the number of violations, listed or not.
func (v *Violations) Len() int { return v.count }

// List returns the violations recorded so far, at most MaxListed.
func (v *Violations) List() []FieldError { return v.list }

// Err returns a 422 *Error listing the violations, or nil when there is none.
func (v *Violations) Err() error {
	if v.count == 0 {
		return nil
	}
	detail := "the request has invalid fields"
	if v.count > len(v.list) {
		detail = fmt.Sprintf("the request has %d invalid fields; the first %d are listed", v.count, len(v.list))
	}
	return &Error{Code: EINVALID, Detail: detail, Fields: append([]FieldError(nil), v.list...)}
}

// parent returns the enclosing member of a field path: "a.b[2]" → "a.b" → "a".
func parent(field string) string {
	i := strings.LastIndexAny(field, ".[")
	if i <= 0 {
		return ""
	}
	return field[:i]
}
