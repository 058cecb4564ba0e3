// Command devidp is the development identity provider: it serves the
// client-credentials token endpoint, JWKS and discovery of the realm file
// Keycloak also imports, for local runs. It is never for production.
// It is put together by internal/app; this command only reads the
// environment and calls it.
package main

import (
	"context"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/cmd/devidp/internal/app"
	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/server"
)

func main() {
	program.Main("devidp", program.EnvOnly("pkg/devidp/README.md", realMain))
}

// realMain reads the configuration and serves until ctx is done.
func realMain(ctx context.Context) error {
	cfg, err := app.LoadConfig(ctx, envconfig.OsLookuper())
	if err != nil {
		return err
	}
	cfg.Logger = server.DefaultLogger(cfg.Log)
	program.WarnMisspelt(ctx, cfg.Logger, cfg)
	return program.Serve(ctx, app.New, cfg)
}
