package problem_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/requestid"
)

func TestStatusMapsEveryCodeOnce(t *testing.T) {
	t.Parallel()
	tests := map[problem.Code]int{
		problem.EMALFORMED: 400, problem.EUNAUTHORIZED: 401, problem.EFORBIDDEN: 403, problem.ENOTFOUND: 404,
		problem.EMETHOD: 405, problem.ECLIENTSLOW: 408, problem.ECONFLICT: 409, problem.ETOOLARGE: 413, problem.EMEDIATYPE: 415,
		problem.EINVALID: 422, problem.ERATELIMIT: 429, problem.ECLIENTGONE: 499, problem.EINTERNAL: 500, problem.EBADGATEWAY: 502,
		problem.EUNAVAILABLE: 503, problem.ETIMEOUT: 504, problem.Code("made-up"): 500,
	}
	for code, want := range tests {
		if got := problem.Status(code); got != want {
			t.Errorf("Status(%s) = %d, want %d", code, got, want)
		}
	}
}

func write(t *testing.T, err error) (*httptest.ResponseRecorder, problem.Body) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/api/v1/empregos", nil)
	r = r.WithContext(requestid.With(r.Context(), "req-123"))
	w := httptest.NewRecorder()
	problem.Write(w, r, err)
	var body problem.Body
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, w.Body.String())
	}
	return w, body
}

func TestWriteRendersRFC9457Bodies(t *testing.T) {
	t.Parallel()
	var v problem.Violations
	v.Add("resumo", "max_length", "must be at most 350 characters")
	v.Add("nome_servico", "required", "is required")
	w, body := write(t, v.Err())
	if w.Code != 422 || w.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("status %d content type %q", w.Code, w.Header().Get("Content-Type"))
	}
	if body.Status != 422 || body.Title != "Unprocessable Entity" || body.Type != "urn:municipal:problem:invalid" ||
		body.Instance != "/api/v1/empregos" || body.RequestID != "req-123" || len(body.Errors) != 2 {
		t.Fatalf("body = %+v", body)
	}
}

func TestWriteNeverShowsInternalCauses(t *testing.T) {
	t.Parallel()
	w, body := write(t, errors.New("pq: password authentication failed for user secret"))
	if w.Code != 500 || strings.Contains(w.Body.String(), "secret") || body.Detail == "" {
		t.Fatalf("status %d body %s", w.Code, w.Body.String())
	}
	w, _ = write(t, problem.Wrap(problem.EUNAVAILABLE, errors.New("dial tcp 10.0.0.5:5432"), "the database is unavailable"))
	if w.Code != 503 || strings.Contains(w.Body.String(), "10.0.0.5") {
		t.Fatalf("status %d body %s", w.Code, w.Body.String())
	}
}

func TestWriteSendsErrorHeaders(t *testing.T) {
	t.Parallel()
	err := problem.Errorf(problem.ERATELIMIT, "slow down").WithHeader("Retry-After", "7")
	w, body := write(t, err)
	if w.Code != 429 || w.Header().Get("Retry-After") != "7" || body.Detail != "slow down" {
		t.Fatalf("status %d headers %v body %+v", w.Code, w.Header(), body)
	}
}

func TestCodeOfFindsWrappedErrors(t *testing.T) {
	t.Parallel()
	err := errors.Join(errors.New("context"), problem.Errorf(problem.ENOTFOUND, "no emprego 7"))
	if !problem.Is(err, problem.ENOTFOUND) || problem.Is(nil, problem.ENOTFOUND) || problem.CodeOf(errors.New("x")) != problem.EINTERNAL {
		t.Fatal("CodeOf does not follow the chain")
	}
}

func TestAFailureAfterTheClientWentAwayIsA499LoggedAtInfo(t *testing.T) {
	var logged bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&logged, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	tests := []struct {
		name       string
		err        error
		gone       bool
		wantStatus int
		wantLevel  string
	}{
		{"a database error of a request whose client left is a 499", problem.Wrap(problem.EUNAVAILABLE, context.Canceled, "the database is unavailable"), true, 499, `"level":"INFO"`},
		{"an unexpected error of a request whose client left is a 499", errors.New("conn closed"), true, 499, `"level":"INFO"`},
		{"a 4xx stays what it is when the client left", problem.Errorf(problem.ENOTFOUND, "no emprego 7"), true, 404, ""},
		{"the same failure with the client still there is a 503 logged as an error", problem.Wrap(problem.EUNAVAILABLE, context.Canceled, "the database is unavailable"), false, 503, `"level":"ERROR"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logged.Reset()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.gone {
				cancel()
			}
			r := httptest.NewRequest(http.MethodPost, "/api/v1/empregos", nil).WithContext(ctx)
			w := httptest.NewRecorder()
			problem.Write(w, r, tt.err)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.wantStatus, w.Body)
			}
			if !strings.Contains(logged.String(), tt.wantLevel) || (tt.wantLevel == "" && logged.Len() > 0) {
				t.Errorf("log %q, want a line at %s", logged.String(), tt.wantLevel)
			}
			if tt.wantStatus == 499 && !strings.Contains(w.Body.String(), `"title":"Client Closed Request"`) {
				t.Errorf("body %s", w.Body)
			}
		})
	}
}
