package jobs_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

func TestTimestampAcceptsRFC3339AndDates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"an RFC 3339 instant with an offset is kept as the same instant", `"2025-02-15T18:00:00-03:00"`, "2025-02-15T21:00:00Z"},
		{"an offset of minutes is kept as the same instant", `"2027-03-01T10:00:00+05:30"`, "2027-03-01T04:30:00Z"},
		{"fractional seconds are kept", `"2025-02-15T18:00:00.123456Z"`, "2025-02-15T18:00:00.123456Z"},
		{"a bare date is midnight in São Paulo", `"2025-03-01"`, "2025-03-01T03:00:00Z"},
		{"a bare date in São Paulo's old summer time is midnight there too", `"2018-12-01"`, "2018-12-01T02:00:00Z"},
		{"a bare date whose midnight the clocks skipped starts as they moved", `"2018-11-04"`, "2018-11-04T03:00:00Z"},
		{"digits finer than the stored microsecond are dropped", `"2027-03-01T10:00:00.123456789Z"`, "2027-03-01T10:00:00.123456Z"},
		{"the last instant of the year 9999 in UTC", `"9999-12-31T23:59:59.999999Z"`, "9999-12-31T23:59:59.999999Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ts jobs.Timestamp
			if err := json.Unmarshal([]byte(tc.in), &ts); err != nil {
				t.Fatal(err)
			}
			if got := ts.UTC().Format(time.RFC3339Nano); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	for _, bad := range []string{`"01/03/2025"`, `"2025-13-01"`, `"2025-03-01 10:00"`, `1700000000`, `"0000-01-01T00:00:00Z"`, `""`,
		// RFC 3339's offset hours end at 23 and its fraction follows a
		// period; Go's parser takes both.
		`"2027-03-01T10:00:00+24:00"`, `"2027-03-01T10:00:00-24:00"`, `"2027-03-01T10:00:00+05:60"`, `"2027-03-01T10:00:00,5Z"`,
		// Instants whose year in UTC has no four digits to be answered in.
		`"9999-12-31T23:00:00-03:00"`, `"0001-01-01T00:30:00+01:00"`,
	} {
		t.Run("the value "+bad+" is refused", func(t *testing.T) {
			var ts jobs.Timestamp
			if err := json.Unmarshal([]byte(bad), &ts); err == nil {
				t.Errorf("accepted as %v", ts)
			}
		})
	}
}

func TestTransitionsFollowTheStatusMachine(t *testing.T) {
	t.Parallel()
	allowed := map[[2]jobs.EmpregoStatus]bool{
		{"CRIADO", "ABERTO"}: true, {"CRIADO", "ENCERRADO"}: true, {"ABERTO", "EM_ANALISE"}: true,
		{"ABERTO", "ENCERRADO"}: true, {"EM_ANALISE", "ABERTO"}: true, {"EM_ANALISE", "ENCERRADO"}: true,
	}
	for _, from := range jobs.EmpregoStatuses {
		for _, to := range jobs.EmpregoStatuses {
			want := allowed[[2]jobs.EmpregoStatus{from, to}] || from == to
			t.Run(string(from)+" to "+string(to), func(t *testing.T) {
				err := jobs.Transition(from, to)
				if want && err != nil {
					t.Errorf("refused: %v", err)
				}
				if !want && !problem.Is(err, problem.ECONFLICT) {
					t.Errorf("err = %v, want a conflict", err)
				}
			})
		}
	}
}

func TestEmpregoValidationTrimsAndListsEverything(t *testing.T) {
	t.Parallel()
	lat, lo, hi := 91.0, int32(10), int32(5)
	in := jobs.EmpregoInput{EmpregoFields: jobs.EmpregoFields{Titulo: "  ", Latitude: &lat, SalarioMin: &lo, SalarioMax: &hi}}
	var v problem.Violations
	in.ValidateNew(&v)
	got := map[string]string{}
	for _, fe := range v.List() {
		got[fe.Field] = fe.Code
	}
	want := map[string]string{"titulo": jobs.CodeRequired, "tipo_contratacao": jobs.CodeRequired, "latitude": jobs.CodeRange, "salario_min": jobs.CodeOrder}
	for field, code := range want {
		if got[field] != code {
			t.Errorf("%s: code %q, want %q (all: %v)", field, got[field], code, got)
		}
	}
	ok := jobs.EmpregoInput{EmpregoFields: jobs.EmpregoFields{Titulo: "  Caixa ", TipoContratacao: "MEI"}}
	var none problem.Violations
	ok.ValidateNew(&none)
	if none.Len() != 0 || ok.Titulo != "Caixa" || ok.InitialStatus() != jobs.StatusCriado {
		t.Errorf("valid input: violations %v, titulo %q, status %s", none.List(), ok.Titulo, ok.InitialStatus())
	}
}
