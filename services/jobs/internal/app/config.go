package app

import (
	"context"
	"errors"
	"log/slog"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/server"
)

// Defaults of the shared variables whose default differs per program.
var Defaults = map[string]string{
	"HTTP_ADDR":    ":8082",
	"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/jobs?sslmode=disable",
}

// Config is every setting of the jobs service, read once from the environment.
type Config struct {
	HTTP        server.Config
	DB          pg.Config
	Log         server.LogConfig
	OIDC        auth.Config
	Idempotency idempotency.Config

	// Logger receives the service's logs; it is not read from the
	// environment. Nil means a logger of Log on standard error.
	Logger *slog.Logger `env:",noinit"`
}

// LoadConfig reads the configuration from l (the environment in
// production), with the jobs defaults, and validates it.
func LoadConfig(ctx context.Context, l envconfig.Lookuper) (Config, error) {
	var cfg Config
	err := program.LoadConfig(ctx, l, Defaults, &cfg)
	return cfg, err
}

// Validate reports settings that cannot work.
func (c Config) Validate() error {
	return errors.Join(c.HTTP.Validate(), c.DB.Validate(), c.OIDC.Validate(), c.Idempotency.Validate())
}
