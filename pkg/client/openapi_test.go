package client_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/client"
)

// openAPIDoc is an OpenAPI 3 document read as plain JSON.
type openAPIDoc struct {
	name string
	root map[string]any
}

// loadDoc reads the OpenAPI document a service embeds and serves, from the
// service's folder of this repository.
func loadDoc(t *testing.T, rel string) *openAPIDoc {
	t.Helper()
	path := filepath.Join("..", "..", filepath.FromSlash(rel))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the OpenAPI document: %v", err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return &openAPIDoc{name: rel, root: root}
}

// schema returns the component schema name, with references resolved.
func (d *openAPIDoc) schema(t *testing.T, name string) map[string]any {
	t.Helper()
	s := d.resolve(map[string]any{"$ref": "#/components/schemas/" + name})
	if s == nil {
		t.Fatalf("%s has no schema %s", d.name, name)
	}
	return s
}

// resolve follows $ref and merges allOf, so that s reads as one schema.
func (d *openAPIDoc) resolve(s map[string]any) map[string]any {
	for range 16 {
		ref, ok := s["$ref"].(string)
		if !ok {
			break
		}
		var node any = d.root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			m, _ := node.(map[string]any)
			node = m[part]
		}
		s, _ = node.(map[string]any)
		if s == nil {
			return nil
		}
	}
	all, ok := s["allOf"].([]any)
	if !ok {
		return s
	}
	merged := map[string]any{}
	for k, v := range s {
		if k != "allOf" {
			merged[k] = v
		}
	}
	props := map[string]any{}
	for _, part := range all {
		p, _ := part.(map[string]any)
		r := d.resolve(p)
		for k, v := range r {
			if k == "properties" {
				maps.Copy(props, v.(map[string]any))
			} else if _, set := merged[k]; !set {
				merged[k] = v
			}
		}
	}
	if len(props) > 0 {
		merged["properties"] = props
	}
	return merged
}

// properties returns the members of an object schema, resolved.
func (d *openAPIDoc) properties(s map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		out[name] = d.resolve(p.(map[string]any))
	}
	return out
}

// jsonMembers returns the JSON members of struct type t by name.
func jsonMembers(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

var timeType = reflect.TypeFor[time.Time]()

// contract compares Go types of the client with the schemas of a document.
type contract struct {
	doc *openAPIDoc
	// inputs names the request schema of each Go type that is also sent,
	// wherever the type appears (a Curso nested in an Orgao included).
	inputs  map[reflect.Type]string
	errs    []string
	visited map[string]bool
}

func (c *contract) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

// value checks that Go type t reads and writes what schema s describes.
func (c *contract) value(at string, t reflect.Type, s map[string]any) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	typ, _ := s["type"].(string)
	want := ""
	switch {
	case t == timeType:
		if typ != "string" || s["format"] != "date-time" {
			c.errorf("%s: the client has a time, the document a %s of format %v", at, typ, s["format"])
		}
		return
	case t.Kind() == reflect.String:
		want = "string"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		want = "integer"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		want = "number"
	case t.Kind() == reflect.Bool:
		want = "boolean"
	case t.Kind() == reflect.Slice:
		want = "array"
	case t.Kind() == reflect.Map || t.Kind() == reflect.Struct:
		want = "object"
	case t.Kind() == reflect.Interface:
		return
	}
	if typ != want && !(want == "object" && typ == "" && s["properties"] != nil) {
		c.errorf("%s: the client has %s (JSON %s), the document says %q", at, t, want, typ)
		return
	}
	switch t.Kind() {
	case reflect.Slice:
		items, _ := s["items"].(map[string]any)
		if items == nil {
			c.errorf("%s: the document's array has no items", at)
			return
		}
		c.value(at+"[]", t.Elem(), c.doc.resolve(items))
	case reflect.Struct:
		var input map[string]any
		if name, ok := c.inputs[t]; ok {
			input = c.doc.resolve(map[string]any{"$ref": "#/components/schemas/" + name})
		}
		c.object(at, t, s, input)
	}
}

// object checks both ways that struct type t and schema s have the same
// members of the same types. Members of the input schema in count too:
// the client must be able to send each one, and may send only those.
func (c *contract) object(at string, t reflect.Type, s, input map[string]any) {
	// A type is checked where it first appears; its schema is the same
	// component wherever it is nested.
	if c.visited[t.String()] {
		return
	}
	c.visited[t.String()] = true
	members := jsonMembers(t)
	out := c.doc.properties(s)
	in := map[string]map[string]any{}
	if input != nil {
		in = c.doc.properties(input)
	}
	for _, name := range slices.Sorted(maps.Keys(members)) {
		p, ok := out[name]
		if !ok {
			p, ok = in[name]
		}
		if !ok {
			c.errorf("%s.%s: the client has the member, the document does not", at, name)
			continue
		}
		c.value(at+"."+name, members[name], p)
	}
	documented := maps.Clone(out)
	maps.Copy(documented, in)
	for _, name := range slices.Sorted(maps.Keys(documented)) {
		if _, ok := members[name]; !ok {
			c.errorf("%s.%s: the document has the member, the client (%s) does not", at, name, t)
		}
	}
	for name, p := range in {
		// A member the request accepts only to ignore it may have no type.
		if q, ok := out[name]; ok && p["type"] != nil && q["type"] != p["type"] {
			c.errorf("%s.%s: %v in requests but %v in responses; the client has one type for both", at, name, p["type"], q["type"])
		}
	}
}

func TestClientTypesMatchTheOpenAPIDocuments(t *testing.T) {
	t.Parallel()
	jobs := loadDoc(t, "services/jobs/internal/http/openapi.json")
	search := loadDoc(t, "services/search-admin/internal/http/openapi.json")
	inputs := map[*openAPIDoc]map[reflect.Type]string{
		jobs: {
			reflect.TypeFor[client.Emprego]():      "EmpregoInput",
			reflect.TypeFor[client.Empresa]():      "NomeInput",
			reflect.TypeFor[client.Escolaridade](): "EscolaridadeInput",
			reflect.TypeFor[client.Orgao]():        "NomeInput",
			reflect.TypeFor[client.Categoria]():    "NomeInput",
			reflect.TypeFor[client.Curso]():        "CursoInput",
		},
		search: {reflect.TypeFor[client.Servico](): "ServicoInput", reflect.TypeFor[client.Synonym](): "SynonymInput"},
	}
	tests := []struct {
		name     string
		doc      *openAPIDoc
		value    any
		response string
	}{
		{"Emprego", jobs, client.Emprego{}, "Emprego"},
		{"Empresa", jobs, client.Empresa{}, "Empresa"},
		{"Escolaridade", jobs, client.Escolaridade{}, "Escolaridade"},
		{"Orgao", jobs, client.Orgao{}, "Orgao"},
		{"Categoria", jobs, client.Categoria{}, "Categoria"},
		{"Curso", jobs, client.Curso{}, "Curso"},
		{"a page of Empregos", jobs, client.Page[client.Emprego]{}, "EmpregoList"},
		{"a page of Cursos", jobs, client.Page[client.Curso]{}, "CursoList"},
		{"an error of the jobs area", jobs, client.Error{}, "Problem"},
		{"Servico", search, client.Servico{}, "Servico"},
		{"a page of Servicos", search, client.Page[client.Servico]{}, "ServicoList"},
		{"the schema versions", search, client.SchemaReport{}, "SchemaReport"},
		{"Synonym", search, client.Synonym{}, "Synonym"},
		{"a page of Synonyms", search, client.Page[client.Synonym]{}, "SynonymList"},
		{"an error of the search area", search, client.Error{}, "Problem"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" reads and writes what the document describes", func(t *testing.T) {
			c := &contract{doc: tt.doc, inputs: inputs[tt.doc], visited: map[string]bool{}}
			c.value(tt.response, reflect.TypeOf(tt.value), tt.doc.schema(t, tt.response))
			for _, e := range c.errs {
				t.Errorf("%s: %s", tt.doc.name, e)
			}
		})
	}
}
