// Command devidp is the development identity provider: it serves the
// client-credentials token endpoint, JWKS and discovery of the realm file
// Keycloak also imports, for local runs. It is never for production.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"

	"github.com/municipal-apis/platform/pkg/devidp"
	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/sethvargo/go-envconfig"
)

func main() {
	program.Main("devidp", func(ctx context.Context, _ []string) error { return realMain(ctx) })
}

// banner is printed at start so nobody mistakes devidp for a real identity provider.
const banner = `
**********************************************************************
*  devidp is a DEVELOPMENT identity provider, NOT FOR PRODUCTION.    *
*  Its client secrets are public and anyone who reaches it gets      *
*  tokens. Use Keycloak in staging and production.                   *
**********************************************************************
`

func realMain(ctx context.Context) error {
	cfg, err := loadConfig(ctx, envconfig.OsLookuper())
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	return run(ctx, cfg, ln, os.Stderr)
}

// run serves devidp on ln until ctx is done.
func run(ctx context.Context, cfg config, ln net.Listener, stderr io.Writer) error {
	logger := server.NewLogger(stderr, cfg.Log)
	_, _ = io.WriteString(stderr, banner)
	logger.WarnContext(ctx, "devidp is a development identity provider, not for production")

	realm, err := loadRealm(cfg.RealmFile)
	if err != nil {
		return err
	}
	idp, err := devidp.New(devidp.Options{Realm: realm, Issuer: cfg.IssuerBase, Logger: logger})
	if err != nil {
		return err
	}
	logger.InfoContext(ctx, "serving realm", "realm", realm.Name, "issuer", idp.Issuer(),
		slog.Int("clients", len(realm.Clients)))
	h := server.Handler(server.Options{
		Logger:       logger,
		Metrics:      server.NewMetrics(),
		MaxBodyBytes: cfg.HTTP.MaxBodyBytes,
		App:          withRoutes(idp, idp.Paths()),
	})
	return server.Serve(ctx, server.New(cfg.HTTP, h, logger), ln, cfg.HTTP.ShutdownTimeout, logger)
}

// withRoutes labels requests to one of paths with that path as their metrics
// route; the paths are few and fixed.
func withRoutes(next http.Handler, paths []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slices.Contains(paths, r.URL.Path) {
			server.SetRoute(r, r.URL.Path)
		}
		next.ServeHTTP(w, r)
	})
}
