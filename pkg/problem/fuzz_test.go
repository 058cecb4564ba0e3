package problem_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/hostiletest"
	"github.com/municipal-apis/platform/pkg/problem"
)

// FuzzDecodeJSON decodes arbitrary bodies: decoding never panics, a fatal
// error is a 4xx problem, violations name a member and a code, and a body
// it accepts whole decodes to what encoding/json reads.
func FuzzDecodeJSON(f *testing.F) {
	for _, c := range hostiletest.Bodies(f, "/api/v1/") {
		if len(c.Body) <= hostiletest.MaxSeedBytes { // the table tests send the large ones
			f.Add(c.Body)
		}
	}
	f.Add([]byte(`{"nome_servico":"Certidão","orgao_gestor":["SMF"],"status":1,"agents":{"tool_hint":"x"},"extra_fields":{"a":[1,{"b":null}]},"is_free":true,"latitude":-22.9}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var dst servico
		var v problem.Violations
		err := problem.DecodeJSON(request(string(body), "application/json", 1<<20), &dst, &v)
		if err != nil {
			var pe *problem.Error
			if !errors.As(err, &pe) || problem.Status(pe.Code) < 400 || problem.Status(pe.Code) >= 500 {
				t.Fatalf("fatal error %v is not a 4xx problem", err)
			}
			return
		}
		// A top-level member named "" is the one member whose path is "":
		// whatever is wrong inside it is reported at "".
		var top map[string]json.RawMessage
		_ = json.Unmarshal(body, &top)
		_, emptyName := top[""]
		for _, fe := range v.List() {
			if fe.Code == "" || fe.Message == "" || fe.Field == "" && !emptyName && fe.Code != "unknown_field" && fe.Code != "duplicate_member" {
				t.Fatalf("violation without a member or code: %+v", fe)
			}
		}
		if v.Len() > 0 {
			return
		}
		// Accepted whole: encoding/json reads the same members.
		var want servico
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("DecodeJSON accepted what encoding/json refuses: %v", err)
		}
		got, _ := json.Marshal(dst)
		exp, _ := json.Marshal(want)
		if string(got) != string(exp) && !strings.Contains(string(body), `\u`) {
			t.Fatalf("decoded %s, encoding/json reads %s", got, exp)
		}
	})
}
