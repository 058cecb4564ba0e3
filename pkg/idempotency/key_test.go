package idempotency_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
)

func TestInvalidKeysAreABadRequestAndRunNothing(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	tests := []struct {
		name string
		keys []string
	}{
		{"an empty key is refused", []string{""}},
		{"a key of only spaces is refused", []string{"   "}},
		{"an empty quoted key is refused", []string{`""`}},
		{"a key over 255 characters is refused", []string{strings.Repeat("k", 256)}},
		{"a key with non-ASCII letters is refused", []string{"chave-ção"}},
		{"a key with a control character is refused", []string{"a\x01b"}},
		{"a key with DEL is refused", []string{"a\x7fb"}},
		{"a quoted key with a stray quote is refused", []string{`"a"b"`}},
		{"a quoted key with an unknown escape is refused", []string{`"a\nb"`}},
		{"two key headers are refused", []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := x.send(x.request(http.MethodPost, "/things", devidptest.JobsAdmin, `{"name":"a"}`, tt.keys...))
			expect(t, rec, http.StatusBadRequest)
			if field, code := violation(t, rec); field != idempotency.Header || code != "invalid" {
				t.Errorf("violation %s/%s, want %s/invalid", field, code, idempotency.Header)
			}
		})
	}
	if x.runs.Load() != 0 || x.rows("idempotency_keys") != 0 {
		t.Errorf("runs %d, keys %d; an invalid key must run and store nothing", x.runs.Load(), x.rows("idempotency_keys"))
	}
}

func TestValidKeyFormsAreAccepted(t *testing.T) {
	t.Parallel()
	x := newHarness(t, idempotency.Config{})
	tests := []struct {
		name, key, same string // same: another spelling of the same key
	}{
		{"a bare UUID is a key", "8e03978e-40d5-43e8-bc93-6894a57f9324", "8e03978e-40d5-43e8-bc93-6894a57f9324"},
		{"a quoted structured string is the same key as its content", `"import 42"`, "import 42"},
		{"escapes inside quotes are undone", `"a\"b\\c"`, `a"b\c`},
		{"255 characters are allowed", strings.Repeat("k", 255), strings.Repeat("k", 255)},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"name":"thing ` + string(rune('a'+i)) + `"}`
			expect(t, x.post("/things", devidptest.JobsAdmin, tt.key, body), http.StatusCreated)
			again := x.post("/things", devidptest.JobsAdmin, tt.same, body)
			expect(t, again, http.StatusCreated)
			if again.Header().Get(idempotency.ReplayedHeader) != "true" {
				t.Errorf("%q and %q are not the same key", tt.key, tt.same)
			}
		})
	}
	if x.runs.Load() != int64(len(tests)) {
		t.Errorf("runs = %d, want %d", x.runs.Load(), len(tests))
	}
}
