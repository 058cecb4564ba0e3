package program_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/program"
)

func TestCommandsRunsTheNamedCommandWithItsArguments(t *testing.T) {
	t.Parallel()
	var ran string
	var got []string
	commands := map[string]program.RunFunc{
		"serve":   func(_ context.Context, args []string) error { ran, got = "serve", args; return nil },
		"migrate": func(_ context.Context, args []string) error { ran, got = "migrate", args; return nil },
	}
	tests := []struct {
		name string
		args []string
		want string
		rest string
	}{
		{"no arguments run serve", nil, "serve", ""},
		{"serve is run by name", []string{"serve"}, "serve", ""},
		{"migrate gets the arguments after its name", []string{"migrate", "-create-database"}, "migrate", "-create-database"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran, got = "", nil
			if err := program.Commands(context.Background(), tt.args, commands); err != nil {
				t.Fatal(err)
			}
			if ran != tt.want || strings.Join(got, " ") != tt.rest {
				t.Errorf("ran %q with %v, want %q with %q", ran, got, tt.want, tt.rest)
			}
		})
	}
	t.Run("an unknown command is refused with the known ones", func(t *testing.T) {
		err := program.Commands(context.Background(), []string{"frobnicate"}, commands)
		if err == nil || !strings.Contains(err.Error(), `"frobnicate"`) || !strings.Contains(err.Error(), "migrate or serve") {
			t.Errorf("err = %v", err)
		}
	})
}

// settings is a program configuration for the LoadConfig tests.
type settings struct {
	Addr  string `env:"HTTP_ADDR"`
	Level string `env:"LOG_LEVEL, default=info"`
}

func (s settings) Validate() error {
	if s.Addr == "" {
		return errors.New("HTTP_ADDR is empty")
	}
	return nil
}

func TestLoadConfigAppliesTheProgramsDefaultsBelowTheEnvironment(t *testing.T) {
	t.Parallel()
	defaults := map[string]string{"HTTP_ADDR": ":8082"}
	tests := []struct {
		name      string
		env       map[string]string
		defaults  map[string]string
		addr      string
		level     string
		wantError string
	}{
		{"an unset variable takes the program's default", nil, defaults, ":8082", "info", ""},
		{"the environment wins over the program's default", map[string]string{"HTTP_ADDR": "127.0.0.1:1", "LOG_LEVEL": "debug"}, defaults, "127.0.0.1:1", "debug", ""},
		{"a configuration that cannot work is refused", nil, nil, "", "", "invalid configuration: HTTP_ADDR is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s settings
			err := program.LoadConfig(context.Background(), envconfig.MapLookuper(tt.env), tt.defaults, &s)
			if tt.wantError != "" {
				if err == nil || err.Error() != tt.wantError {
					t.Fatalf("err = %v, want %q", err, tt.wantError)
				}
				return
			}
			if err != nil || s.Addr != tt.addr || s.Level != tt.level {
				t.Errorf("got %+v, %v; want addr %q level %q", s, err, tt.addr, tt.level)
			}
		})
	}
}

// fakeApp records how Serve used it.
type fakeApp struct {
	runErr, closeErr error
	ran, closed      bool
}

func (a *fakeApp) Run(context.Context) error { a.ran = true; return a.runErr }
func (a *fakeApp) Close() error              { a.closed = true; return a.closeErr }

func TestServeRunsAndClosesTheApp(t *testing.T) {
	t.Parallel()
	runErr, closeErr := errors.New("serve: port taken"), errors.New("close: pool busy")
	a := &fakeApp{runErr: runErr, closeErr: closeErr}
	err := program.Serve(context.Background(), func(context.Context, string) (*fakeApp, error) { return a, nil }, "cfg")
	if !a.ran || !a.closed || !errors.Is(err, runErr) || !errors.Is(err, closeErr) {
		t.Errorf("ran %v closed %v err %v; want both errors after running and closing", a.ran, a.closed, err)
	}
	newErr := errors.New("open database")
	err = program.Serve(context.Background(), func(context.Context, string) (*fakeApp, error) { return nil, newErr }, "cfg")
	if !errors.Is(err, newErr) {
		t.Errorf("err = %v, want the error of New", err)
	}
}

// nestedSettings are settings inside settings, as a service's are.
type nestedSettings struct {
	settings
	HTTP struct {
		ReadTimeout time.Duration `env:"HTTP_READ_TIMEOUT, default=5s"`
	}
}

// An operator who wrote HTTP_READ_TIMEOUT=10 was told about
// "Config: HTTP: ReadTimeout", the Go fields, and had to guess the variable.
func TestLoadConfigNamesTheVariableItCouldNotRead(t *testing.T) {
	t.Parallel()
	var s nestedSettings
	err := program.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{"HTTP_ADDR": ":1", "HTTP_READ_TIMEOUT": "10"}), nil, &s)
	if want := `read configuration: HTTP_READ_TIMEOUT: time: missing unit in duration "10"`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}
