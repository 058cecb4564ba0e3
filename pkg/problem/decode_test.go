package problem_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/problem"
)

type agents struct {
	ExclusiveForAgents *bool   `json:"exclusive_for_agents"`
	ToolHint           *string `json:"tool_hint"`
}

type servico struct {
	Nome        *string        `json:"nome_servico"`
	OrgaoGestor []string       `json:"orgao_gestor"`
	Status      *int           `json:"status"`
	Agents      *agents        `json:"agents"`
	Extra       map[string]any `json:"extra_fields"`
	IsFree      *bool          `json:"is_free"`
	Latitude    *float64       `json:"latitude"`
}

func request(body, contentType string, limit int64) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/api/v1/admin/services", strings.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	if limit > 0 {
		r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, limit)
	}
	return r
}

func TestDecodeJSONRejectsBodiesThatAreNotJSONObjects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		body        string
		contentType string
		limit       int64
		want        problem.Code
	}{
		{"a missing content type is unsupported", `{}`, "", 0, problem.EMEDIATYPE},
		{"a form content type is unsupported", `a=b`, "application/x-www-form-urlencoded", 0, problem.EMEDIATYPE},
		{"text/plain is unsupported even with JSON inside", `{}`, "text/plain", 0, problem.EMEDIATYPE},
		{"JSON declared in another charset than UTF-8 is unsupported", `{"nome_servico":"Certid\xe3o"}`, "application/json; charset=latin1", 0, problem.EMEDIATYPE},
		{"JSON declared as UTF-16 is unsupported", `{}`, "application/json; charset=UTF-16", 0, problem.EMEDIATYPE},
		{"a body over the limit is too large", `{"nome_servico":"` + strings.Repeat("x", 2048) + `"}`, "application/json", 1024, problem.ETOOLARGE},
		{"an empty body is malformed", ``, "application/json", 0, problem.EMALFORMED},
		{"truncated JSON is malformed", `{"nome_servico":`, "application/json", 0, problem.EMALFORMED},
		{"a JSON array is malformed", `[{"nome_servico":"x"}]`, "application/json", 0, problem.EMALFORMED},
		{"trailing garbage is malformed", `{} {}`, "application/json", 0, problem.EMALFORMED},
		// JSON's whitespace is space, tab, CR and LF only (RFC 8259): what
		// Unicode calls space besides is not JSON around an object.
		{"a form feed before the object is malformed", "\f{}", "application/json", 0, problem.EMALFORMED},
		{"a no-break space after the object is malformed", "{}\u00a0", "application/json", 0, problem.EMALFORMED},
		{"a next-line character before the object is malformed", "\u0085{}", "application/json", 0, problem.EMALFORMED},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dst servico
			var v problem.Violations
			err := problem.DecodeJSON(request(tt.body, tt.contentType, tt.limit), &dst, &v)
			if got := problem.CodeOf(err); err == nil || got != tt.want {
				t.Fatalf("code = %v (err %v), want %v", got, err, tt.want)
			}
		})
	}
}

func TestDecodeJSONAcceptsJSONMediaTypesWithParameters(t *testing.T) {
	t.Parallel()
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/json; charset=UTF-8", "application/json;charset=\"utf-8\"", "application/merge-patch+json"} {
		var dst servico
		var v problem.Violations
		r := request(`{"nome_servico":"Certidão"}`, ct, 0)
		r.Method = http.MethodPatch // a merge patch is a PATCH's
		if err := problem.DecodeJSON(r, &dst, &v); err != nil {
			t.Fatalf("%s: %v", ct, err)
		}
		if dst.Nome == nil || *dst.Nome != "Certidão" {
			t.Fatalf("%s: nome = %v", ct, dst.Nome)
		}
	}
}

func TestDecodeJSONRefusesOtherJSONTypesAndContentCodings(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, method, contentType, encoding string }{
		// A PUT replaces every member: told it is a merge patch, it would
		// null what the client left out as unchanged.
		{"a merge patch with a PUT", http.MethodPut, "application/merge-patch+json", ""},
		{"a merge patch with a POST", http.MethodPost, "application/merge-patch+json", ""},
		{"a JSON patch", http.MethodPatch, "application/json-patch+json", ""},
		{"a problem document", http.MethodPost, "application/problem+json", ""},
		{"a body declared gzip", http.MethodPost, "application/json", "gzip"},
		{"a body declared br, among others", http.MethodPost, "application/json", "identity, br"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := request(`{"nome_servico":"Certidão"}`, tc.contentType, 0)
			r.Method = tc.method
			if tc.encoding != "" {
				r.Header.Set("Content-Encoding", tc.encoding)
			}
			var dst servico
			var v problem.Violations
			err := problem.DecodeJSON(r, &dst, &v)
			if !problem.Is(err, problem.EMEDIATYPE) || dst.Nome != nil {
				t.Errorf("err %v, nome %v: want a 415 and nothing read", err, dst.Nome)
			}
			var pe *problem.Error
			if errors.As(err, &pe) && tc.encoding != "" && pe.Header.Get("Accept-Encoding") != "identity" {
				t.Errorf("a 415 for a coding: Accept-Encoding %q, want identity (RFC 9110 12.5.3)", pe.Header.Get("Accept-Encoding"))
			}
		})
	}
	r := request(`{"nome_servico":"Certidão"}`, "application/json", 0)
	r.Header.Set("Content-Encoding", "identity")
	var dst servico
	var v problem.Violations
	if err := problem.DecodeJSON(r, &dst, &v); err != nil || dst.Nome == nil {
		t.Errorf("identity, the coding of no coding: %v", err)
	}
}

func TestDecodeJSONCallsNestingBeyondGosDecoderMaxDepth(t *testing.T) {
	t.Parallel()
	for _, levels := range []int{100, 10_001, 100_000} {
		body := `{"nome_servico":"x","orgao_gestor":` + strings.Repeat("[", levels) + `"a"` + strings.Repeat("]", levels) + "}"
		var dst servico
		var v problem.Violations
		if err := problem.DecodeJSON(request(body, "application/json", 0), &dst, &v); err != nil {
			t.Fatalf("%d levels: %v, want a max_depth violation", levels, err)
		}
		if got := v.List(); len(got) == 0 || got[0].Field != "orgao_gestor" || got[0].Code != "max_depth" {
			t.Errorf("%d levels: %v", levels, got)
		}
	}
	// Too deep and broken besides: not valid JSON.
	broken := `{"a":` + strings.Repeat("[", 10_001) + "1" + strings.Repeat("]", 10_000) + "}"
	var v problem.Violations
	if err := problem.DecodeJSON(request(broken, "application/json", 0), &servico{}, &v); !problem.Is(err, problem.EMALFORMED) {
		t.Errorf("a broken deep body: %v", err)
	}
}

func TestDecodeJSONReportsEveryMemberProblemAtOnce(t *testing.T) {
	t.Parallel()
	body := `{"nome_servico": 12, "orgao_gestor": ["ok", 3], "status": "1", "agents": {"tool_hint": false, "x": 1},
	          "is_free": "yes", "latitude": "north", "extra_fields": [1], "typo": true, "id": "ignored"}`
	var dst servico
	var v problem.Violations
	if err := problem.DecodeJSON(request(body, "application/json", 0), &dst, &v, "id"); err != nil {
		t.Fatalf("fatal error: %v", err)
	}
	got := map[string]string{}
	for _, f := range v.List() {
		got[f.Field] = f.Code
	}
	want := map[string]string{
		"nome_servico":     "invalid_type",
		"orgao_gestor[1]":  "invalid_type",
		"status":           "invalid_type",
		"agents.tool_hint": "invalid_type",
		"agents.x":         "unknown_field",
		"is_free":          "invalid_type",
		"latitude":         "invalid_type",
		"extra_fields":     "invalid_type",
		"typo":             "unknown_field",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("violations = %v, want %v", got, want)
	}
	err := v.Err()
	if problem.CodeOf(err) != problem.EINVALID {
		t.Fatalf("Err() code = %v", problem.CodeOf(err))
	}
}

// The same body gets the same problem: members are checked in name order
// (Go's maps would give another order each time), at every depth.
func TestDecodeJSONReportsMembersInNameOrder(t *testing.T) {
	t.Parallel()
	body := `{"zeta": 1, "status": "x", "alpha": 2, "agents": {"z": 1, "tool_hint": 3, "a": 2}, "mid": 3, "latitude": "n", "beta": 4}`
	want := []string{"agents.a", "agents.tool_hint", "agents.z", "alpha", "beta", "latitude", "mid", "status", "zeta"}
	for range 20 {
		var dst servico
		var v problem.Violations
		if err := problem.DecodeJSON(request(body, "application/json", 0), &dst, &v); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range v.List() {
			got = append(got, f.Field)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("violations in the order %v, want %v", got, want)
		}
	}
}

func TestDecodeJSONMessagesNameTheExpectedType(t *testing.T) {
	t.Parallel()
	var dst servico
	var v problem.Violations
	_ = problem.DecodeJSON(request(`{"status": 1.5, "orgao_gestor": "x", "is_free": 1}`, "application/json", 0), &dst, &v)
	want := map[string]string{"status": "must be an integer", "orgao_gestor": "must be an array of strings", "is_free": "must be a boolean"}
	for _, f := range v.List() {
		if want[f.Field] != f.Message {
			t.Errorf("%s: message %q, want %q", f.Field, f.Message, want[f.Field])
		}
	}
	if v.Len() != 3 {
		t.Fatalf("got %d violations, want 3", v.Len())
	}
}

func TestDecodeJSONSaysWhichIntegersAMemberHolds(t *testing.T) {
	t.Parallel()
	var dst struct {
		Small *int32 `json:"small"`
		Large *int64 `json:"large"`
		Count *uint8 `json:"count"`
		Fine  *int32 `json:"fine"`
		Frac  *int32 `json:"frac"`
	}
	var v problem.Violations
	body := `{"small": 2147483648, "large": -9223372036854775809, "count": 256, "fine": -2147483648, "frac": 1.5}`
	_ = problem.DecodeJSON(request(body, "application/json", 0), &dst, &v)
	want := map[string][2]string{
		"small": {"out_of_range", "must be an integer from -2147483648 to 2147483647"},
		"large": {"out_of_range", "must be an integer from -9223372036854775808 to 9223372036854775807"},
		"count": {"out_of_range", "must be an integer from 0 to 255"},
		"frac":  {"invalid_type", "must be an integer"},
	}
	for _, f := range v.List() {
		if w := want[f.Field]; w != [2]string{f.Code, f.Message} {
			t.Errorf("%s: %s %q, want %v", f.Field, f.Code, f.Message, w)
		}
	}
	if v.Len() != len(want) || dst.Fine == nil || *dst.Fine != -2147483648 {
		t.Errorf("got %d violations, fine %v", v.Len(), dst.Fine)
	}
}

func TestDecodeJSONFillsValidMembersAndTreatsNullAsAbsent(t *testing.T) {
	t.Parallel()
	body := `{"nome_servico":"Emissão de 2ª via 🧾","orgao_gestor":["SMS","SMF"],"status":1,"agents":{"exclusive_for_agents":true,"tool_hint":"use"},"extra_fields":{"a":{"b":[1,2]}},"is_free":null}`
	var dst servico
	var v problem.Violations
	if err := problem.DecodeJSON(request(body, "application/json", 0), &dst, &v); err != nil {
		t.Fatal(err)
	}
	if v.Len() != 0 {
		t.Fatalf("unexpected violations %v", v.List())
	}
	if *dst.Nome != "Emissão de 2ª via 🧾" || len(dst.OrgaoGestor) != 2 || *dst.Status != 1 || !*dst.Agents.ExclusiveForAgents || *dst.Agents.ToolHint != "use" {
		t.Fatalf("decoded %+v", dst)
	}
	if dst.IsFree != nil {
		t.Fatalf("null is_free decoded as %v, want nil", *dst.IsFree)
	}
	if _, ok := dst.Extra["a"].(map[string]any); !ok {
		t.Fatalf("extra_fields = %#v", dst.Extra)
	}
}

func TestViolationsRemembersFlaggedFields(t *testing.T) {
	t.Parallel()
	var v problem.Violations
	if v.Err() != nil {
		t.Fatal("empty Violations must not be an error")
	}
	v.Add("resumo", "max_length", "must be at most 350 characters")
	if !v.Has("resumo") || v.Has("nome_servico") {
		t.Fatal("Has does not track fields")
	}
	v.Add("orgao_gestor[1]", "invalid_type", "must be a string")
	v.Add("agents.tool_hint", "invalid_type", "must be a string")
	for _, f := range []string{"orgao_gestor[1]", "orgao_gestor", "agents.tool_hint", "agents"} {
		if !v.Has(f) {
			t.Errorf("Has(%q) = false, want true for a violation inside it", f)
		}
	}
	if v.Has("orgao") || v.Has("agents.exclusive_for_agents") {
		t.Error("Has flags fields that have no violation")
	}
}

func TestDecodeNoneRefusesWhatAnOperationWithoutABodyWouldIgnore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body, contentType string
		want              problem.Code // "": accepted
		field             string
	}{
		{"", "", "", ""},
		{"", "application/x-www-form-urlencoded", "", ""}, // curl -X POST -d ''
		{" \r\n", "application/json", "", ""},
		{"{}", "application/json", "", ""},
		{`{"schema_version":"v2"}`, "application/json", problem.EINVALID, "schema_version"},
		{`{"x":1,"y":2}`, "application/json", problem.EINVALID, "x"},
		{"[", "application/json", problem.EMALFORMED, ""},
		{"null", "application/json", problem.EMALFORMED, ""},
		{`{"a":1}`, "text/plain", problem.EMEDIATYPE, ""},
		{strings.Repeat(" ", 100) + "{}", "application/json", problem.ETOOLARGE, ""},
	} {
		err := problem.DecodeNone(request(tc.body, tc.contentType, 64))
		if got := problem.CodeOf(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("%q (%s): %v, want %q", tc.body, tc.contentType, err, tc.want)
			continue
		}
		var pe *problem.Error
		if tc.field != "" && (!errors.As(err, &pe) ||
			!slices.ContainsFunc(pe.Fields, func(f problem.FieldError) bool { return f.Field == tc.field && f.Code == "unknown_field" })) {
			t.Errorf("%q: %v, want %s as an unknown_field", tc.body, err, tc.field)
		}
	}
}

func TestAddUnknownParametersFlagsWhatIsNotKnownInNameOrder(t *testing.T) {
	t.Parallel()
	var v problem.Violations
	q := url.Values{"zeta": {"1"}, "page": {"2"}, "alpha": {"3", "4"}, "mode": {""}}
	v.AddUnknownParameters(q, func(name string) bool { return name == "page" || name == "mode" }, "unknown_parameter", "is not a parameter")
	var pe *problem.Error
	if !errors.As(v.Err(), &pe) {
		t.Fatalf("no 422: %v", v.Err())
	}
	var got []string
	for _, f := range pe.Fields {
		if f.Code != "unknown_parameter" || f.Message != "is not a parameter" {
			t.Errorf("field %+v", f)
		}
		got = append(got, f.Field)
	}
	if !slices.Equal(got, []string{"alpha", "zeta"}) {
		t.Errorf("flagged %v, want [alpha zeta]", got)
	}
}
