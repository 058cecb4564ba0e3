// Package server runs an http.Server with the platform's timeouts and
// graceful shutdown, and provides the middleware every program shares:
// request ids, access logs, metrics, panic recovery and body limits.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"
)

// Config holds the HTTP server settings of a program, read from the environment.
type Config struct {
	Addr              string        `env:"HTTP_ADDR"`
	ReadHeaderTimeout time.Duration `env:"HTTP_READ_HEADER_TIMEOUT, default=5s"`
	ReadTimeout       time.Duration `env:"HTTP_READ_TIMEOUT, default=30s"`
	WriteTimeout      time.Duration `env:"HTTP_WRITE_TIMEOUT, default=60s"`
	IdleTimeout       time.Duration `env:"HTTP_IDLE_TIMEOUT, default=120s"`
	ShutdownTimeout   time.Duration `env:"HTTP_SHUTDOWN_TIMEOUT, default=20s"`
	MaxHeaderBytes    int           `env:"HTTP_MAX_HEADER_BYTES, default=65536"`
	MaxBodyBytes      int64         `env:"HTTP_MAX_BODY_BYTES, default=1048576"`
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	if c.Addr == "" {
		return errors.New("HTTP_ADDR is empty")
	}
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{"HTTP_READ_HEADER_TIMEOUT", c.ReadHeaderTimeout}, {"HTTP_READ_TIMEOUT", c.ReadTimeout}, {"HTTP_IDLE_TIMEOUT", c.IdleTimeout}} {
		if t.d <= 0 {
			return fmt.Errorf("%s must be positive, not %s", t.name, t.d)
		}
	}
	if c.MaxBodyBytes <= 0 || c.MaxHeaderBytes <= 0 {
		return errors.New("HTTP_MAX_BODY_BYTES and HTTP_MAX_HEADER_BYTES must be positive")
	}
	return nil
}

// New builds an http.Server for h with every timeout of cfg set.
func New(cfg Config, h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Addr:              cfg.Addr,
		Handler:           h,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// Run listens on srv.Addr and serves until ctx is done, then shuts down
// gracefully, letting in-flight requests finish within shutdownTimeout.
func Run(ctx context.Context, srv *http.Server, shutdownTimeout time.Duration, logger *slog.Logger) error {
	ln, err := Listen(srv.Addr)
	if err != nil {
		return err
	}
	return Serve(ctx, srv, ln, shutdownTimeout, logger)
}

// Serve is Run on a listener the caller opened (tests use port 0).
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, shutdownTimeout time.Duration, logger *slog.Logger) error {
	return ServeAll(ctx, shutdownTimeout, logger, Endpoint{Server: srv, Listener: ln})
}

// Endpoint is a server and the listener it serves on.
type Endpoint struct {
	Server   Runner
	Listener net.Listener
}

// Runner is a server ServeAll runs and drains: an *http.Server, or a
// *FastServer.
type Runner interface {
	// Serve serves ln until Shutdown; afterwards it returns nil or
	// http.ErrServerClosed.
	Serve(ln net.Listener) error
	// Shutdown stops accepting connections and waits for the requests
	// in flight to finish, or for ctx to be done.
	Shutdown(ctx context.Context) error
}

// ServeAll serves every endpoint (a program's public and admin listeners)
// until ctx is done or one of them fails, then shuts them all down
// gracefully, letting in-flight requests finish within shutdownTimeout.
func ServeAll(ctx context.Context, shutdownTimeout time.Duration, logger *slog.Logger, eps ...Endpoint) error {
	errc := make(chan error, len(eps))
	for _, ep := range eps {
		go func() { errc <- ep.Server.Serve(ep.Listener) }()
		logger.InfoContext(ctx, "listening", "addr", ep.Listener.Addr().String())
	}
	var failed error
	select {
	case err := <-errc:
		failed = fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down", "timeout", shutdownTimeout.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	errs := make(chan error, len(eps))
	for _, ep := range eps {
		go func() { errs <- ep.Server.Shutdown(shutdownCtx) }()
	}
	all := []error{failed}
	for range eps {
		if err := <-errs; err != nil {
			all = append(all, fmt.Errorf("graceful shutdown: %w", err))
		}
	}
	running := len(eps)
	if failed != nil {
		running--
	}
	for range running {
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			all = append(all, fmt.Errorf("serve: %w", err))
		}
	}
	return errors.Join(all...)
}

// AdminConfig is where a program serves its probes and metrics, apart from
// its API, so that what the public port reaches never includes them.
type AdminConfig struct {
	Addr string `env:"ADMIN_ADDR"`
	// Defaulted is set by a program whose Addr is its own default rather
	// than the operator's choice (ADMIN_ADDR unset). Only then may
	// ListenAll, finding Addr busy, listen on a free port of the same host
	// instead; an address the operator chose that cannot be bound stays a
	// failure, since probes and Prometheus are told where to look.
	Defaulted bool
}

// Validate reports an admin address that cannot work beside the public
// address httpAddr (port 0 on both asks for two free ports).
func (c AdminConfig) Validate(httpAddr string) error {
	switch {
	case c.Addr == "":
		return errors.New("ADMIN_ADDR is empty")
	case c.Addr == httpAddr && !strings.HasSuffix(c.Addr, ":0"):
		return fmt.Errorf("ADMIN_ADDR %s is HTTP_ADDR: probes and metrics need a listener of their own", c.Addr)
	}
	return nil
}
