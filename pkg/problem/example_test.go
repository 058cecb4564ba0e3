package problem_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"unicode/utf8"

	"github.com/municipal-apis/platform/pkg/problem"
)

// escolaridadeInput is the body of a create: nivel is required.
type escolaridadeInput struct {
	Nivel string `json:"nivel"`
}

// createEscolaridade decodes the body, adds its own rules to the same
// Violations and answers one 422 that lists every violation.
func createEscolaridade(w http.ResponseWriter, r *http.Request) {
	var in escolaridadeInput
	var v problem.Violations
	if err := problem.DecodeJSON(r, &in, &v, "id", "empregos"); err != nil {
		problem.Write(w, r, err) // 400, 413 or 415
		return
	}
	if !v.Has("nivel") && strings.TrimSpace(in.Nivel) == "" {
		v.Add("nivel", "required", "nivel is required")
	} else if utf8.RuneCountInString(in.Nivel) > 255 {
		v.Add("nivel", "max_length", "nivel has more than 255 characters")
	}
	if err := v.Err(); err != nil {
		problem.Write(w, r, err)
		return
	}
	w.WriteHeader(http.StatusCreated)
}

// ExampleDecodeJSON shows a handler that reports an unknown member and a
// broken rule in one 422, while accepting a read-only member echoed back.
func ExampleDecodeJSON() {
	for _, body := range []string{
		`{"nivel": "Ensino médio", "id": 7}`,
		`{"nivle": "Ensino médio"}`,
		`{"nivel": `,
	} {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/escolaridades", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		createEscolaridade(rec, r)
		fmt.Println(strings.TrimSpace(fmt.Sprint(rec.Code, " ", rec.Header().Get("Content-Type"))))
		if rec.Code == http.StatusUnprocessableEntity {
			fmt.Println(strings.Count(rec.Body.String(), `"field"`), "violations:",
				strings.Contains(rec.Body.String(), `"nivle"`), strings.Contains(rec.Body.String(), `"nivel"`))
		}
	}
	// Output:
	// 201
	// 422 application/problem+json
	// 2 violations: true true
	// 400 application/problem+json
}
