package program

import (
	"context"
	"fmt"

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
		return fmt.Errorf("read configuration: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	return nil
}
