package problem_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/problem"
)

// violations decodes body into a servico and returns the code of each
// violated field, failing on a fatal error.
func violations(t *testing.T, body string) (servico, map[string]string) {
	t.Helper()
	var dst servico
	var v problem.Violations
	if err := problem.DecodeJSON(request(body, "application/json", 0), &dst, &v); err != nil {
		t.Fatalf("fatal error %v", err)
	}
	got := map[string]string{}
	for _, fe := range v.List() {
		got[fe.Field] = fe.Code
	}
	return dst, got
}

func nested(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

func TestDecodeJSONRejectsRepeatedMemberNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, field string
	}{
		{"a repeated top-level member", `{"nome_servico":"a","nome_servico":"b"}`, "nome_servico"},
		{"a repeated member spelled with an escape", `{"nome_servico":"a","nome_servic\u006f":"b"}`, "nome_servico"},
		{"a repeated member of a nested object", `{"agents":{"tool_hint":"a","tool_hint":"b"}}`, "agents.tool_hint"},
		{"a repeated member inside a free-form member", `{"extra_fields":{"a":[{"x":1,"x":2}]}}`, "extra_fields.a[0].x"},
		{"a repeated read-only member", `{"id":"1","id":"2","nome_servico":"a"}`, "id"},
		{"a repeated unknown member", `{"nivel":"a","nivel":"b"}`, "nivel"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a 422 naming it", func(t *testing.T) {
			t.Parallel()
			_, got := violations(t, tt.body)
			if got[tt.field] != "duplicate_member" {
				t.Errorf("violations %v, want duplicate_member on %s", got, tt.field)
			}
		})
	}
	t.Run("the same name in different objects is no repetition", func(t *testing.T) {
		t.Parallel()
		dst, got := violations(t, `{"nome_servico":"a","agents":{"tool_hint":"x"},"extra_fields":{"nome_servico":1,"b":{"nome_servico":2},"c":[{"x":1},{"x":2}]}}`)
		if len(got) != 0 || dst.Nome == nil || len(dst.Extra) != 3 {
			t.Errorf("violations %v, decoded %+v", got, dst)
		}
	})
}

func TestDecodeJSONBoundsNesting(t *testing.T) {
	t.Parallel()
	t.Run("a free-form member at the deepest level allowed is kept", func(t *testing.T) {
		t.Parallel()
		// the body is level 1, extra_fields' object 2, its member's arrays 3..32
		dst, got := violations(t, `{"extra_fields":{"a":`+nested(problem.MaxDepth-2)+`}}`)
		if len(got) != 0 || dst.Extra == nil {
			t.Errorf("violations %v", got)
		}
	})
	t.Run("the deepest level allowed may hold a value", func(t *testing.T) {
		t.Parallel()
		// levels 1 and 2 as above, arrays 3..32, the deepest holding a number:
		// 32 levels of objects and arrays, which the documents allow
		inner := strings.Repeat("[", problem.MaxDepth-2) + "1" + strings.Repeat("]", problem.MaxDepth-2)
		if dst, got := violations(t, `{"extra_fields":{"a":`+inner+`}}`); len(got) != 0 || dst.Extra == nil {
			t.Errorf("violations %v", got)
		}
	})
	for _, depth := range []int{problem.MaxDepth - 1, 9000} {
		t.Run(strconv.Itoa(depth)+" nested arrays in a member's object are a 422 on the member", func(t *testing.T) {
			t.Parallel()
			dst, got := violations(t, `{"nome_servico":"a","extra_fields":{"a":`+nested(depth)+`}}`)
			if got["extra_fields"] != "max_depth" || len(got) != 1 || dst.Extra != nil {
				t.Errorf("violations %v, extra_fields decoded as %v", got, dst.Extra != nil)
			}
		})
	}
	t.Run("a deep unknown member is named too", func(t *testing.T) {
		t.Parallel()
		_, got := violations(t, `{"zzz":`+nested(100)+`}`)
		if got["zzz"] != "max_depth" {
			t.Errorf("violations %v", got)
		}
	})
}

func TestDecodeJSONBoundsFreeFormMembers(t *testing.T) {
	t.Parallel()
	members := func(n int) string {
		m := map[string]int{}
		for i := range n {
			m["k"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("y", i/26)] = i
		}
		raw, _ := json.Marshal(m)
		return string(raw)
	}
	tests := []struct {
		name  string
		extra string
		ok    bool
	}{
		{"as many members as allowed are kept", members(problem.MaxFreeFormItems), true},
		{"one member more is a 422", members(problem.MaxFreeFormItems + 1), false},
		{"array items count as members", `{"a":[` + strings.TrimSuffix(strings.Repeat("1,", problem.MaxFreeFormItems), ",") + `]}`, false},
		{"members of nested objects count too", `{"a":{"b":` + members(problem.MaxFreeFormItems-1) + `}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dst, got := violations(t, `{"extra_fields":`+tt.extra+`}`)
			if tt.ok != (len(got) == 0) || !tt.ok && (got["extra_fields"] != "max_items" || dst.Extra != nil) {
				t.Errorf("violations %v", got)
			}
		})
	}
}

func TestDecodeJSONRefusesBrokenText(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"{\"nome_servico\":\"M\xffdio\"}", "{\"nome_servico\":\"a\xc0\xafb\"}", "{\"nome_servico\":\"a\xed\xa0\x80b\"}", "\xff\xfe{\x00}\x00"} {
		t.Run(strconv.Quote(body)+" is not UTF-8: a 400", func(t *testing.T) {
			t.Parallel()
			var dst servico
			var v problem.Violations
			if err := problem.DecodeJSON(request(body, "application/json", 0), &dst, &v); !problem.Is(err, problem.EMALFORMED) {
				t.Errorf("err = %v, want malformed", err)
			}
		})
	}
	tests := []struct{ name, body, field string }{
		{"a lone high surrogate", `{"nome_servico":"a\ud800b"}`, "nome_servico"},
		{"a lone low surrogate in an array", `{"orgao_gestor":["ok","\udc00"]}`, "orgao_gestor[1]"},
		{"surrogates in the wrong order", `{"nome_servico":"\ude00\ud83d"}`, "nome_servico"},
		{"a lone surrogate in a member name", `{"extra_fields":{"k\ud800":1}}`, "extra_fields.k\ufffd"},
		{"a lone surrogate inside a member named \"\"", `{"":{"":"\ud800"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a 422 naming the member", func(t *testing.T) {
			t.Parallel()
			_, got := violations(t, tt.body)
			if got[tt.field] != "invalid_string" {
				t.Errorf("violations %v", got)
			}
		})
	}
	for _, body := range []string{`{"nome_servico":"Emoji \ud83d\ude00"}`, `{"nome_servico":"\ufffd literal \uFFFD and ` + "\ufffd" + `"}`} {
		t.Run(body+" is kept", func(t *testing.T) {
			t.Parallel()
			if dst, got := violations(t, body); len(got) != 0 || dst.Nome == nil {
				t.Errorf("violations %v", got)
			}
		})
	}
}

func TestTheProblemListsAtMostMaxListedViolations(t *testing.T) {
	t.Parallel()
	members := make([]string, 60000)
	for i := range members {
		members[i] = `"u` + strconv.Itoa(i) + `":0`
	}
	var dst servico
	var v problem.Violations
	if err := problem.DecodeJSON(request(`{`+strings.Join(members, ",")+`}`, "application/json", 0), &dst, &v); err != nil {
		t.Fatal(err)
	}
	var pe *problem.Error
	if err := v.Err(); !errors.As(err, &pe) || len(pe.Fields) != problem.MaxListed || v.Len() != 60000 ||
		pe.Detail != "the request has 60000 invalid fields; the first 100 are listed" {
		t.Errorf("Len %d, err %v", v.Len(), err)
	}
}
