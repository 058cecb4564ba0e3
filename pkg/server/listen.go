package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
)

// Listen opens the TCP listener of a program's server on addr; port 0
// picks a free port, which the listener's Addr reports.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}

// CloseListener closes ln unless it is nil or already closed, as it is
// once Serve has shut the server down.
func CloseListener(ln net.Listener) error {
	if ln == nil {
		return nil
	}
	if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("close listener: %w", err)
	}
	return nil
}

// Listeners are a program's two listeners: the public one (HTTP_ADDR) for
// its API and /livez, the admin one (ADMIN_ADDR) for its probes and metrics.
type Listeners struct {
	Public, Admin net.Listener
	// AdminBusy is why the default admin address could not be bound when
	// Admin listens on a free port instead (AdminConfig.Defaulted); nil
	// when Admin listens where it was asked to.
	AdminBusy error
}

// ListenAll opens the public listener on cfg.Addr and the admin listener on
// admin.Addr; on failure nothing stays open. When admin.Addr is a
// program's default (admin.Defaulted) and cannot be bound, as when a second
// instance runs on the same host without its own ADMIN_ADDR, the admin
// listener takes a free port of the same host instead and AdminBusy says
// why; the program logs it, and Admin's address is the one to probe.
func ListenAll(cfg Config, admin AdminConfig) (Listeners, error) {
	var l Listeners
	var err error
	if l.Public, err = Listen(cfg.Addr); err != nil {
		return Listeners{}, err
	}
	if l.Admin, err = Listen(admin.Addr); err != nil && admin.Defaulted {
		l.AdminBusy = err
		if host, _, serr := net.SplitHostPort(admin.Addr); serr == nil {
			l.Admin, err = Listen(net.JoinHostPort(host, "0"))
		}
	}
	if err != nil {
		return Listeners{}, errors.Join(err, l.Close())
	}
	return l, nil
}

// WarnAdminBusy logs, when the admin listener took a free port because the
// default one was busy (AdminBusy), where the probes and metrics are served
// instead: an orchestrator or Prometheus told the default looks elsewhere.
func (l Listeners) WarnAdminBusy(logger *slog.Logger, admin AdminConfig) {
	if l.AdminBusy == nil {
		return
	}
	logger.Warn("ADMIN_ADDR is not set and its default is busy: /livez, /readyz and /metrics are served on a free port instead",
		"default", admin.Addr, "admin_addr", l.Admin.Addr().String(), "err", l.AdminBusy)
}

// Serve serves public and admin on their listeners with cfg's timeouts
// until ctx is done, then drains both within cfg.ShutdownTimeout.
func (l Listeners) Serve(ctx context.Context, cfg Config, public, admin http.Handler, logger *slog.Logger) error {
	return l.ServeWith(ctx, cfg, New(cfg, public, logger), admin, logger)
}

// ServeWith is Serve with the public listener served by public, a server
// the program built itself (the gateway's *FastServer).
func (l Listeners) ServeWith(ctx context.Context, cfg Config, public Runner, admin http.Handler, logger *slog.Logger) error {
	return ServeAll(ctx, cfg.ShutdownTimeout, logger,
		Endpoint{Server: public, Listener: l.Public},
		Endpoint{Server: New(cfg, admin, logger), Listener: l.Admin})
}

// Close closes the listeners that are still open.
func (l Listeners) Close() error {
	return errors.Join(CloseListener(l.Public), CloseListener(l.Admin))
}
