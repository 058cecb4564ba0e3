package program

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"strings"

	"github.com/sethvargo/go-envconfig"
)

// Config is a program's configuration: a struct of env-tagged settings
// that reports the ones that cannot work.
type Config interface {
	Validate() error
}

// LoadConfig fills cfg, a pointer to a program's configuration, from the
// environment l, then validates it. A variable l does not set is taken from
// defaults before the env tag's own default: defaults holds the shared
// variables whose default differs per program, such as HTTP_ADDR.
func LoadConfig(ctx context.Context, l envconfig.Lookuper, defaults map[string]string, cfg Config) error {
	err := envconfig.ProcessWith(ctx, &envconfig.Config{
		Target:   cfg,
		Lookuper: envconfig.MultiLookuper(l, envconfig.MapLookuper(defaults)),
	})
	if err != nil {
		if named, ok := byVariable(reflect.TypeOf(cfg), err.Error()); ok {
			return fmt.Errorf("read configuration: %s", named)
		}
		return fmt.Errorf("read configuration: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	return nil
}

// byVariable rewrites an envconfig error, which names the struct fields on
// the way to the one it could not read ("Config: HTTP: ReadTimeout: time:
// missing unit in duration \"10\""), to name the variable an operator set
// ("HTTP_READ_TIMEOUT: time: missing unit ..."). It reports false when the
// path does not lead to a field with an env tag.
func byVariable(t reflect.Type, msg string) (string, bool) {
	for {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		name, rest, ok := strings.Cut(msg, ": ")
		if !ok || t.Kind() != reflect.Struct {
			return "", false
		}
		f, found := t.FieldByName(name)
		if !found {
			return "", false
		}
		if key := envKey(f); key != "" {
			return key + ": " + rest, true
		}
		t, msg = f.Type, rest
	}
}

// envKey is the variable a field's env tag reads, "" for none.
func envKey(f reflect.StructField) string {
	key, _, _ := strings.Cut(f.Tag.Get("env"), ",")
	return strings.TrimSpace(key)
}

// IsHTTPURL reports whether raw is an absolute http or https URL with a
// host: what a setting that names a server to call must be.
func IsHTTPURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
