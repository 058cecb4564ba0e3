// Package app puts devidp together: its Config, read from the environment,
// and New, which loads the realm, builds the development identity provider
// and listens. cmd/devidp and its tests start it the same way, through New.
package app

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"

	"github.com/municipal-apis/platform/pkg/devidp"
	"github.com/municipal-apis/platform/pkg/server"
)

// banner is printed at start so nobody mistakes devidp for a real identity provider.
const banner = `
**********************************************************************
*  devidp is a DEVELOPMENT identity provider, NOT FOR PRODUCTION.    *
*  Its client secrets are public and anyone who reaches it gets      *
*  tokens. Use Keycloak in staging and production.                   *
**********************************************************************
`

// App is a wired devidp listening on its address.
type App struct {
	cfg     Config
	logger  *slog.Logger
	stderr  io.Writer
	realm   *devidp.Realm
	idp     *devidp.Server
	handler http.Handler
	ln      net.Listener
}

// New loads the realm, listens on cfg.Addr and builds the identity
// provider, whose issuer base is cfg.IssuerBase or, when that is empty, the
// address it listens on; nothing is served until Run.
func New(_ context.Context, cfg Config) (*App, error) {
	a := &App{cfg: cfg, logger: cfg.Logger, stderr: cfg.Stderr}
	if a.stderr == nil {
		a.stderr = os.Stderr
	}
	if a.logger == nil {
		a.logger = server.NewLogger(a.stderr, cfg.Log)
	}
	var err error
	if a.realm, err = loadRealm(cfg.RealmFile); err != nil {
		return nil, err
	}
	if a.ln, err = server.Listen(cfg.Addr); err != nil {
		return nil, err
	}
	issuer := cfg.IssuerBase
	if issuer == "" {
		issuer = listenBase(a.ln.Addr().String())
	}
	if a.idp, err = devidp.New(devidp.Options{Realm: a.realm, Issuer: issuer, Logger: a.logger}); err != nil {
		_ = a.ln.Close()
		return nil, err
	}
	a.handler = server.Handler(server.Options{
		Logger:       a.logger,
		Metrics:      server.NewMetrics(),
		MaxBodyBytes: cfg.HTTP.MaxBodyBytes,
		App:          withRoutes(a.idp, a.idp.Paths()),
	})
	return a, nil
}

// Addr is the address devidp listens on.
func (a *App) Addr() string { return a.ln.Addr().String() }

// Run warns that devidp is not for production and serves until ctx is done.
func (a *App) Run(ctx context.Context) error {
	_, _ = io.WriteString(a.stderr, banner)
	a.logger.WarnContext(ctx, "devidp is a development identity provider, not for production")
	a.logger.InfoContext(ctx, "serving realm", "realm", a.realm.Name, "issuer", a.idp.Issuer(),
		slog.Int("clients", len(a.realm.Clients)))
	srv := server.New(a.cfg.HTTP, a.handler, a.logger)
	return server.Serve(ctx, srv, a.ln, a.cfg.HTTP.ShutdownTimeout, a.logger)
}

// Close stops listening, if Run has not.
func (a *App) Close() error { return server.CloseListener(a.ln) }

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
