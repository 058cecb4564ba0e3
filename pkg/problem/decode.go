package problem

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"math"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeJSON reads the JSON object in r's body into dst, a pointer to a struct
// whose json tags name the members a client may send.
//
// Fatal problems come back as the error: a non-JSON content type (415), a body
// over the limit set by http.MaxBytesReader (413), an empty or unparseable
// body, one that is not UTF-8 (RFC 8259 §8.1) or not an object (400).
// Member-level problems are recorded in v so that the caller can add its own
// rules and report everything at once: an unknown member is "unknown_field",
// a value of the wrong type "invalid_type", a member whose name repeats in its
// object "duplicate_member", a string or name holding an unpaired UTF-16
// surrogate escape ("\ud800", which decoders silently turn into U+FFFD)
// "invalid_string", one nested deeper than MaxDepth "max_depth", and a
// free-form member (map, interface, json.RawMessage) holding more than
// MaxFreeFormItems members and items "max_items". Members named in ignore
// (read-only members of the response that clients echo back) are accepted and
// dropped. JSON null leaves a member at its zero value, so optional members
// are pointers.
func DecodeJSON(r *http.Request, dst any, v *Violations, ignore ...string) error {
	if err := checkContentType(r); err != nil {
		return err
	}
	data, err := ReadBody(r)
	if err != nil {
		return err
	}
	return DecodeBytes(data, dst, v, ignore...)
}

// DecodeNone checks the body of an operation that takes none. No body, a
// blank one or an empty JSON object passes; a member is an "unknown_field"
// 422 (a client that sent {"schema_version": "v2"} to an operation that
// reads nothing must not believe it chose a version), and anything else is
// refused as DecodeJSON refuses it.
func DecodeNone(r *http.Request) error {
	data, err := ReadBody(r)
	if err != nil || len(bytes.Trim(data, jsonSpace)) == 0 {
		return err
	}
	if err := checkContentType(r); err != nil {
		return err
	}
	var v Violations
	if err := DecodeBytes(data, &struct{}{}, &v); err != nil {
		return err
	}
	return v.Err()
}

// ReadBody reads the whole request body and puts it back, so that a
// middleware can inspect a body its handler reads again. A body over the
// limit set by http.MaxBytesReader is a 413; a broken one a 400. A request
// without a body yields nil.
func ReadBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, BodyTooLarge(mbe.Limit)
		}
		return nil, Wrap(EMALFORMED, err, "the request body could not be read")
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	return data, nil
}

// jsonSpace is JSON's insignificant whitespace (RFC 8259, section 2).
const jsonSpace = " \t\r\n"

// DecodeBytes is DecodeJSON for a body that was already read.
func DecodeBytes(data []byte, dst any, v *Violations, ignore ...string) error {
	data = bytes.Trim(data, jsonSpace) // bytes.TrimSpace would take \f, NBSP and more, which JSON refuses
	if len(data) == 0 {
		return Errorf(EMALFORMED, "the request body is empty")
	}
	if !utf8.Valid(data) {
		return Errorf(EMALFORMED, "the request body is not valid UTF-8")
	}
	valid := json.Valid(data)
	if !valid && !tooDeepForGo(data) {
		return Errorf(EMALFORMED, "the request body is not valid JSON")
	}
	if data[0] != '{' {
		return Errorf(EMALFORMED, "the request body must be a JSON object")
	}
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return Wrap(EINTERNAL, errors.New("DecodeBytes needs a pointer to a struct"), "")
	}
	skip := make(map[string]bool, len(ignore))
	for _, name := range ignore {
		skip[name] = true
	}
	if !valid {
		// Too deep to decode, or to walk: the walk's paths grow with the
		// depth, and a body of a megabyte of brackets would take minutes.
		tooDeep(v, deepMember(data))
		return nil
	}
	checkShape(data, v)
	d := decoder{v: v, ignore: skip}
	d.object("", data, rv.Elem())
	return nil
}

// tooDeepForGo reports whether data is one JSON value, valid but for
// nesting deeper than Go's decoder goes (10000 levels), which json.Valid
// refuses: such a body is a max_depth 422 like any deeper than MaxDepth,
// not "not valid JSON". Go's tokenizer has no such limit.
func tooDeepForGo(data []byte) bool {
	var se *json.SyntaxError
	if err := json.Unmarshal(data, new(json.RawMessage)); !errors.As(err, &se) || !strings.HasSuffix(se.Error(), "exceeded max depth") {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for depth := 0; ; {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			if depth--; depth == 0 {
				_, err := dec.Token()
				return errors.Is(err, io.EOF)
			}
		}
	}
}

// deepMember names the top-level member of data, a valid JSON object, in
// which nesting first goes deeper than MaxDepth, in one pass.
func deepMember(data []byte) string {
	depth, member := 0, ""
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			end := i + 1
			for ; data[end] != '"'; end++ {
				if data[end] == '\\' {
					end++
				}
			}
			if depth == 1 && bytes.HasPrefix(bytes.TrimLeft(data[end+1:], jsonSpace), []byte(":")) {
				_ = json.Unmarshal(data[i:end+1], &member) // a member name of the body's object
			}
			i = end
		case '{', '[':
			if depth++; depth > MaxDepth {
				return member
			}
		case '}', ']':
			depth--
		}
	}
	return member
}

// checkContentType refuses a body that is not JSON in UTF-8, as it was
// sent: application/json, without a content coding.
func checkContentType(r *http.Request) error {
	h := r.Header
	// A body sent compressed (Content-Encoding: gzip) would be read as the
	// JSON it is not, and one that claims a coding it does not have
	// stored as it came (RFC 9110, 8.4.1).
	for _, coding := range h.Values("Content-Encoding") {
		for c := range strings.SplitSeq(coding, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				// Accept-Encoding on a 415 names the codings a body may
				// have (RFC 9110, 12.5.3): none but identity.
				return Errorf(EMEDIATYPE, "Content-Encoding %s is not supported: send the body uncompressed", c).
					WithHeader("Accept-Encoding", "identity")
			}
		}
	}
	ct := h.Get("Content-Type")
	if ct == "" {
		return Errorf(EMEDIATYPE, "Content-Type must be application/json")
	}
	// Only application/json, and on a PATCH the JSON merge patch that
	// changes the members sent (RFC 7396), which is what a PATCH here
	// does: another JSON type means another thing (a merge patch sent
	// with a PUT, which replaces every member, asks for what the PUT
	// does not do, and would null what it leaves out).
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || !(mt == "application/json" || mt == "application/merge-patch+json" && r.Method == http.MethodPatch) {
		return Errorf(EMEDIATYPE, "Content-Type must be application/json")
	}
	// JSON is UTF-8 (RFC 8259): a body declared in another charset would be
	// read as UTF-8 and stored misread, so it is refused.
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		return Errorf(EMEDIATYPE, "the body must be UTF-8, not charset=%s", cs)
	}
	return nil
}

type decoder struct {
	v      *Violations
	ignore map[string]bool // top-level read-only members
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
)

// object decodes a JSON object into the struct value sv member by member.
func (d *decoder) object(prefix string, data []byte, sv reflect.Value) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		d.v.Add(strings.TrimSuffix(prefix, "."), "invalid_type", "must be an object")
		return
	}
	fields := jsonFields(sv.Type())
	// In name order, as unknown query parameters are: the same body gets
	// the same problem, member for member.
	for _, name := range slices.Sorted(maps.Keys(members)) {
		raw := members[name]
		path := prefix + name
		if d.v.Has(path) { // repeated or nested too deep: reported once
			continue
		}
		idx, ok := fields[name]
		if !ok {
			if prefix == "" && d.ignore[name] {
				continue
			}
			d.v.Add(path, "unknown_field", "is not a member of this resource")
			continue
		}
		d.value(path, raw, sv.FieldByIndex(idx))
	}
}

// value decodes raw into fv, recording a violation at path when it does
// not fit. A member that already broke the shape rules is left out.
func (d *decoder) value(path string, raw json.RawMessage, fv reflect.Value) {
	if d.v.Has(path) {
		return
	}
	if string(raw) == "null" {
		fv.SetZero()
		return
	}
	t := fv.Type()
	if freeForm(t) && !checkFreeForm(path, raw, d.v) {
		return
	}
	if t == rawMessageType || reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		d.leaf(path, raw, fv)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem := reflect.New(t.Elem())
		d.value(path, raw, elem.Elem())
		if !d.v.Has(path) {
			fv.Set(elem)
		}
	case reflect.Struct:
		if raw[0] != '{' {
			d.v.Add(path, "invalid_type", "must be an object")
			return
		}
		d.object(path+".", raw, fv)
	case reflect.Slice:
		if raw[0] != '[' {
			d.v.Add(path, "invalid_type", "must be "+describe(t))
			return
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			d.v.Add(path, "invalid_type", "must be "+describe(t))
			return
		}
		out := reflect.MakeSlice(t, len(items), len(items))
		for i, item := range items {
			d.value(path+"["+strconv.Itoa(i)+"]", item, out.Index(i))
		}
		fv.Set(out)
	default:
		d.leaf(path, raw, fv)
	}
}

func (d *decoder) leaf(path string, raw json.RawMessage, fv reflect.Value) {
	ptr := reflect.New(fv.Type())
	if err := json.Unmarshal(raw, ptr.Interface()); err != nil {
		var ute *json.UnmarshalTypeError
		var se *json.SyntaxError
		msg := "must be " + describe(fv.Type())
		if !errors.As(err, &ute) && !errors.As(err, &se) && err.Error() != "" {
			msg = err.Error()
		}
		if least, most, ok := integerRange(fv.Type()); ok && ute != nil && isIntegerLiteral(raw) {
			// An integer the member's type cannot hold (salario_max is
			// 32 bits): "must be an integer" would not say why.
			d.v.Add(path, "out_of_range", "must be an integer from "+least+" to "+most)
			return
		}
		d.v.Add(path, "invalid_type", msg)
		return
	}
	fv.Set(ptr.Elem())
}

// integerRange gives the bounds of an integer type, as decimal text.
func integerRange(t reflect.Type) (least, most string, ok bool) {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(-1<<(t.Bits()-1), 10), strconv.FormatInt(1<<(t.Bits()-1)-1, 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "0", strconv.FormatUint(math.MaxUint64>>(64-t.Bits()), 10), true
	}
	return "", "", false
}

// isIntegerLiteral reports whether raw is a JSON number without a fraction
// or an exponent.
func isIntegerLiteral(raw json.RawMessage) bool {
	digits := bytes.TrimPrefix(raw, []byte("-"))
	if len(digits) == 0 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// freeForm reports whether t takes any JSON value rather than a shape the
// struct spells out: a map, an interface or json.RawMessage.
func freeForm(t reflect.Type) bool {
	return t == rawMessageType || t.Kind() == reflect.Map || t.Kind() == reflect.Interface
}

// describe names the JSON type a Go type accepts, for error messages.
func describe(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(describe(t.Elem()), "a "), "an ") + "s"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a valid value"
}

// jsonFields maps the JSON member names of struct type t to field indexes,
// following embedded structs the way encoding/json does.
func jsonFields(t reflect.Type) map[string][]int {
	out := map[string][]int{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := out[name]; !dup {
			out[name] = f.Index
		}
	}
	return out
}
