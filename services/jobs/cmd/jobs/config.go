package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/server"
)

// Defaults that differ between the programs of the platform.
const (
	defaultAddr        = ":8082"
	defaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/jobs?sslmode=disable"
)

// config is every setting of the program, read once from the environment.
type config struct {
	HTTP        server.Config
	DB          pg.Config
	Log         server.LogConfig
	OIDC        oidcConfig
	Idempotency idempotency.Config
}

// oidcConfig says which access tokens the service accepts.
type oidcConfig struct {
	IssuerURL string `env:"OIDC_ISSUER_URL, default=http://127.0.0.1:8090/auth/realms/municipal"`
	JWKSURL   string `env:"OIDC_JWKS_URL"`
	Audience  string `env:"OIDC_AUDIENCE, default=api-gateway"`
}

// loadConfig reads the environment through lookuper and validates the result.
func loadConfig(ctx context.Context, lookuper envconfig.Lookuper) (config, error) {
	var cfg config
	if err := envconfig.ProcessWith(ctx, &envconfig.Config{Target: &cfg, Lookuper: lookuper}); err != nil {
		return cfg, fmt.Errorf("read configuration: %w", err)
	}
	if cfg.HTTP.Addr == "" {
		cfg.HTTP.Addr = defaultAddr
	}
	if cfg.DB.URL == "" {
		cfg.DB.URL = defaultDatabaseURL
	}
	if err := errors.Join(cfg.HTTP.Validate(), cfg.DB.Validate(), cfg.Idempotency.Validate()); err != nil {
		return cfg, fmt.Errorf("invalid configuration: %w", err)
	}
	return cfg, nil
}
