package problem

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Bounds on the shape of a JSON request body, beyond its size in bytes.
const (
	// MaxDepth is how deeply objects and arrays may nest in a body; the
	// body's own object is level 1.
	MaxDepth = 32
	// MaxFreeFormItems is how many members and array items a free-form
	// member (one decoded into a map, an interface or json.RawMessage,
	// such as extra_fields) may hold, counted at every level.
	MaxFreeFormItems = 256
)

// checkShape records every member of data, a valid JSON object, whose name
// repeats in its object ("duplicate_member": JSON parsers disagree on which
// one wins, so neither is taken), every string or name holding an unpaired
// surrogate escape ("invalid_string"), and every top-level member that nests
// deeper than MaxDepth ("max_depth").
func checkShape(data []byte, v *Violations) {
	var member string // the top-level member being walked
	reported := map[string]bool{}
	walkJSON(data, "", visitor{
		container: func(path string, depth int) {
			if depth == 2 {
				member = path
			}
			if depth > MaxDepth && !reported[member] {
				reported[member] = true
				tooDeep(v, member)
			}
		},
		dup: func(path string) {
			v.Add(path, "duplicate_member", "appears more than once in its object")
		},
		surrogate: func(path string) {
			v.Add(path, "invalid_string", "holds an unpaired UTF-16 surrogate escape")
		},
	})
}

// tooDeep records that member nests deeper than MaxDepth.
func tooDeep(v *Violations, member string) {
	v.Addf(member, "max_depth", "must not nest objects and arrays deeper than %d levels, the body's own object being the first", MaxDepth)
}

// checkFreeForm records a violation at path when raw, the value of a
// free-form member, holds more than MaxFreeFormItems members and items.
func checkFreeForm(path string, raw []byte, v *Violations) bool {
	values := 0
	walkJSON(raw, path, visitor{value: func(string, int) { values++ }})
	if values-1 > MaxFreeFormItems {
		v.Addf(path, "max_items", "must hold at most %d members and array items in all", MaxFreeFormItems)
		return false
	}
	return true
}

// visitor is told about what walkJSON meets; unset functions are not called.
type visitor struct {
	// value is called for every value with its path and depth.
	value func(path string, depth int)
	// container is called for every object and array with its path and
	// depth: the levels of nesting, which a string or number in the
	// deepest array does not add to.
	container func(path string, depth int)
	// dup is called for every member whose name repeats in its object.
	dup func(path string)
	// surrogate is called for every string or member name with an
	// unpaired surrogate escape, at the path of the value or member.
	surrogate func(path string)
}

// frame is an object or array being walked.
type frame struct {
	path  string
	names map[string]bool // member names seen; nil for an array
	next  string          // path of the member whose value comes next
	index int             // index of the next array item
	key   bool            // an object expects a member name or its end
}

// walkJSON walks data, a valid JSON value in UTF-8, telling vis about every
// value with its path below base ("a.b[2]") and its depth (data itself is 1).
func walkJSON(data []byte, base string, vis visitor) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil { // io.EOF; data was checked to be valid JSON
			return
		}
		str, isString := tok.(string)
		unpaired := isString && vis.surrogate != nil && unpairedSurrogate(str, data[start:dec.InputOffset()])
		path := base
		if n := len(stack); n > 0 {
			top := stack[n-1]
			switch {
			case tok == json.Delim('}') || tok == json.Delim(']'):
				stack = stack[:n-1]
				continue
			case top.key:
				top.next, top.key = join(top.path, str), false
				if top.names[str] && vis.dup != nil {
					vis.dup(top.next)
				}
				top.names[str] = true
				if unpaired {
					vis.surrogate(top.next)
				}
				continue
			case top.names != nil:
				path, top.key = top.next, true
			default:
				path = top.path + "[" + strconv.Itoa(top.index) + "]"
				top.index++
			}
		}
		if vis.value != nil {
			vis.value(path, len(stack)+1)
		}
		if vis.container != nil && (tok == json.Delim('{') || tok == json.Delim('[')) {
			vis.container(path, len(stack)+1)
		}
		if unpaired {
			vis.surrogate(path)
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{path: path, names: map[string]bool{}, key: true})
		case json.Delim('['):
			stack = append(stack, &frame{path: path})
		}
	}
}

// unpairedSurrogate reports whether the decoded string s holds more U+FFFD
// than its raw JSON text spells out, literally or as \ufffd: the others
// came from surrogate escapes without their pair, which decoders replace.
func unpairedSurrogate(s string, raw []byte) bool {
	decoded := strings.Count(s, "\ufffd")
	if decoded == 0 {
		return false
	}
	spelt := bytes.Count(raw, []byte("\ufffd")) + bytes.Count(bytes.ToLower(raw), []byte(`\ufffd`))
	return decoded > spelt
}

// join appends a member name to the path of its object.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
