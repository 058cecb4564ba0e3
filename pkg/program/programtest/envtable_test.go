package programtest

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

type inner struct {
	Timeout time.Duration `env:"INNER_TIMEOUT, default=5s"`
	URL     string        `env:"INNER_URL"`
}

type config struct {
	Addr   string `env:"HTTP_ADDR"`
	Routes string `env:"ROUTES, default=/a=http://x:1,/b=http://y:2"`
	Inner  inner
	Ptr    *inner
	Logger *slog.Logger `env:",noinit"`
}

func TestVariablesFollowNestedStructsAndTheProgramsDefaults(t *testing.T) {
	t.Parallel()
	vars := Variables(config{}, map[string]string{"HTTP_ADDR": ":8082", "NOT_READ": "x"})
	want := map[string]Variable{
		"HTTP_ADDR":     {"HTTP_ADDR", ":8082", true},
		"ROUTES":        {"ROUTES", "/a=http://x:1,/b=http://y:2", true},
		"INNER_TIMEOUT": {"INNER_TIMEOUT", "5s", true},
		"INNER_URL":     {"INNER_URL", "", false},
	}
	if len(vars) != len(want) {
		t.Errorf("variables %v, want %v", vars, want)
	}
	for name, w := range want {
		if vars[name] != w {
			t.Errorf("%s = %+v, want %+v", name, vars[name], w)
		}
	}
}

// trueDoc documents config with the defaults of TestCompare.
const trueDoc = "intro\n\n| variable | meaning | default |\n|---|---|---|\n" +
	"| `HTTP_ADDR` | listen address | `:8082` |\n" +
	"| `ROUTES` | routing, `prefix=url` pairs | `/a=http://x:1,/b=http://y:2` |\n" +
	"| `INNER_TIMEOUT`, `INNER_URL` | the inner pair | `5s`, none |\n"

func TestCompareFindsWhatTheTableGetsWrong(t *testing.T) {
	t.Parallel()
	defaults := map[string]string{"HTTP_ADDR": ":8082"}
	tests := []struct {
		name    string
		doc     string
		want    []string // one substring per problem, in order of the variables' names
		wantErr string
	}{
		{"a true table has no problem", trueDoc, nil, ""},
		{"a row of one variable each reads the same",
			strings.Replace(trueDoc, "| `INNER_TIMEOUT`, `INNER_URL` | the inner pair | `5s`, none |", "| `INNER_TIMEOUT` | t | `5s` |\n| `INNER_URL` | u | the same as `HTTP_ADDR`, or none |", 1), nil, ""},
		{"a variable read but not documented", strings.Replace(trueDoc, "| `ROUTES` | routing, `prefix=url` pairs | `/a=http://x:1,/b=http://y:2` |\n", "", 1),
			[]string{"ROUTES is read by"}, ""},
		{"a documented variable that is not read", trueDoc + "| `GONE` | old | none |\n", []string{"GONE is documented but"}, ""},
		{"a wrong default", strings.Replace(trueDoc, "`:8082`", "`:8080`", 1),
			[]string{"HTTP_ADDR is documented with default `:8080`, the program's is `:8082`"}, ""},
		{"a default described in words", strings.Replace(trueDoc, "`:8082`", "the service's port", 1),
			[]string{"HTTP_ADDR defaults to `:8082`; write that value"}, ""},
		{"a default for a variable that has none", strings.Replace(trueDoc, "`5s`, none", "`5s`", 1),
			[]string{"INNER_URL is documented with default `5s`, but the program has none"}, ""},
		{"a wildcard instead of names", trueDoc + "| `HTTP_*_TIMEOUT` | t | none |\n", nil, "not a variable name"},
		{"two tables", trueDoc + "\n| variable | meaning | default |\n|---|---|---|\n| `X` | x | none |\n", nil, "second environment table"},
		{"no table", "nothing here", nil, "no table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := compare(tt.doc, config{}, defaults)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("problems %q, want %d like %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}
