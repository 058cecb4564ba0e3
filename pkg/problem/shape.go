package problem

import (
	"bytes"
	"encoding/json"
	"strconv"
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
// one wins, so neither is taken), and every top-level member that nests
// deeper than MaxDepth ("max_depth").
func checkShape(data []byte, v *Violations) {
	var member string // the top-level member being walked
	reported := map[string]bool{}
	walkJSON(data, "", func(path string, depth int) {
		if depth == 2 {
			member = path
		}
		if depth > MaxDepth && !reported[member] {
			reported[member] = true
			v.Addf(member, "max_depth", "must not nest objects and arrays deeper than %d levels", MaxDepth-1)
		}
	}, func(path string) {
		v.Add(path, "duplicate_member", "appears more than once in its object")
	})
}

// checkFreeForm records a violation at path when raw, the value of a
// free-form member, holds more than MaxFreeFormItems members and items.
func checkFreeForm(path string, raw []byte, v *Violations) bool {
	values := 0
	walkJSON(raw, path, func(string, int) { values++ }, nil)
	if values-1 > MaxFreeFormItems {
		v.Addf(path, "max_items", "must hold at most %d members and array items in all", MaxFreeFormItems)
		return false
	}
	return true
}

// frame is an object or array being walked.
type frame struct {
	path  string
	names map[string]bool // member names seen; nil for an array
	next  string          // path of the member whose value comes next
	index int             // index of the next array item
	key   bool            // an object expects a member name or its end
}

// walkJSON calls value for every value in data, a valid JSON value, with
// its path below base ("a.b[2]") and its depth (data itself is 1), and dup,
// when set, for every member whose name repeats in its object.
func walkJSON(data []byte, base string, value func(path string, depth int), dup func(path string)) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil { // io.EOF; data was checked to be valid JSON
			return
		}
		path := base
		if n := len(stack); n > 0 {
			top := stack[n-1]
			switch {
			case tok == json.Delim('}') || tok == json.Delim(']'):
				stack = stack[:n-1]
				continue
			case top.key:
				name, _ := tok.(string)
				top.next, top.key = join(top.path, name), false
				if top.names[name] && dup != nil {
					dup(top.next)
				}
				top.names[name] = true
				continue
			case top.names != nil:
				path, top.key = top.next, true
			default:
				path = top.path + "[" + strconv.Itoa(top.index) + "]"
				top.index++
			}
		}
		value(path, len(stack)+1)
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{path: path, names: map[string]bool{}, key: true})
		case json.Delim('['):
			stack = append(stack, &frame{path: path})
		}
	}
}

// join appends a member name to the path of its object.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
