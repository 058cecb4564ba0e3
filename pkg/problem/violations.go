package problem

import (
	"fmt"
	"strings"
)

// Violations collects every violated field rule of a request so that one 422
// reports all of them at once.
type Violations struct {
	list []FieldError
	seen map[string]bool
}

// Add records a violation of field.
func (v *Violations) Add(field, code, message string) {
	if v.seen == nil {
		v.seen = map[string]bool{}
	}
	// A violation of "agents.tool_hint" or "orgao_gestor[1]" also flags its
	// parent, so a rule on the parent does not report the same mistake again.
	for f := field; f != ""; f = parent(f) {
		v.seen[f] = true
	}
	v.list = append(v.list, FieldError{Field: field, Code: code, Message: message})
}

// Addf records a violation with a formatted message.
func (v *Violations) Addf(field, code, format string, args ...any) {
	v.Add(field, code, fmt.Sprintf(format, args...))
}

// Has reports whether field, or a member or item inside it, already has a
// violation, so later rules can skip a member that was, say, of the wrong type.
func (v *Violations) Has(field string) bool { return v.seen[field] }

// Len returns the number of violations.
func (v *Violations) Len() int { return len(v.list) }

// List returns the violations recorded so far.
func (v *Violations) List() []FieldError { return v.list }

// Err returns a 422 *Error listing every violation, or nil when there is none.
func (v *Violations) Err() error {
	if len(v.list) == 0 {
		return nil
	}
	return &Error{Code: EINVALID, Detail: "the request has invalid fields", Fields: append([]FieldError(nil), v.list...)}
}

// parent returns the enclosing member of a field path: "a.b[2]" → "a.b" → "a".
func parent(field string) string {
	i := strings.LastIndexAny(field, ".[")
	if i <= 0 {
		return ""
	}
	return field[:i]
}
