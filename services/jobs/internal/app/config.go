package app

import (
	"context"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/service"
)

// Defaults of the shared variables whose default differs per program.
var Defaults = map[string]string{
	"HTTP_ADDR":         ":8082",
	"ADMIN_ADDR":        ":9092",
	"DATABASE_URL":      "postgres://postgres@127.0.0.1:5432/jobs?sslmode=disable",
	"OTEL_SERVICE_NAME": "jobs",
}

// Config is every setting of the jobs service, read once from the
// environment: the settings every service shares, and no other.
type Config struct {
	service.Config
}

// LoadConfig reads the configuration from l (the environment in
// production), with the jobs defaults, and validates it.
func LoadConfig(ctx context.Context, l envconfig.Lookuper) (Config, error) {
	var cfg Config
	err := program.LoadConfig(ctx, l, Defaults, &cfg)
	return cfg, err
}
