package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/devidp"
	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/server"
)

// Config is devidp's configuration, read from the environment. Its listen
// address is DEVIDP_ADDR, which LoadConfig copies into HTTP.Addr.
type Config struct {
	Addr             string `env:"DEVIDP_ADDR, default=127.0.0.1:8090"`
	IssuerBase       string `env:"DEVIDP_ISSUER_BASE"` // empty: http:// and the address devidp listens on
	RealmFile        string `env:"DEVIDP_REALM_FILE"`  // empty: the embedded realm
	AllowNonLoopback bool   `env:"DEVIDP_ALLOW_NON_LOOPBACK, default=false"`
	HTTP             server.Config
	Log              server.LogConfig

	// Logger and Stderr are not read from the environment. Logger receives
	// the logs; nil means a logger of Log on Stderr. Stderr receives the
	// start-up banner; nil means standard error.
	Logger *slog.Logger `env:",noinit"`
	Stderr io.Writer
}

// LoadConfig reads the configuration from l (the environment in
// production) and validates it.
func LoadConfig(ctx context.Context, l envconfig.Lookuper) (Config, error) {
	var cfg Config
	if err := program.LoadConfig(ctx, l, nil, &cfg); err != nil {
		return cfg, err
	}
	cfg.HTTP.Addr = cfg.Addr
	return cfg, nil
}

// Validate reports settings that cannot work, among them a listen address
// other programs could reach without DEVIDP_ALLOW_NON_LOOPBACK.
func (c Config) Validate() error {
	http := c.HTTP
	http.Addr = c.Addr
	if err := http.Validate(); err != nil {
		return err
	}
	if err := c.Log.Validate(); err != nil {
		return err
	}
	if c.IssuerBase != "" {
		if err := devidp.CheckIssuerBase(c.IssuerBase); err != nil {
			return fmt.Errorf("DEVIDP_ISSUER_BASE %w", err)
		}
	}
	if !c.AllowNonLoopback && !isLoopback(c.Addr) {
		return fmt.Errorf("DEVIDP_ADDR %q is not a loopback address; devidp hands out tokens to anyone who can reach it, "+
			"so set DEVIDP_ALLOW_NON_LOOPBACK=true only inside an isolated network such as a container", c.Addr)
	}
	return nil
}

// isLoopback reports whether addr (host:port) binds only to the loopback
// interface; an empty host binds to every interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// listenBase is the base URL of a listener at addr (host:port) for clients
// on this machine: an unspecified host (every interface) reads as loopback.
func listenBase(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1" // Go reports 0.0.0.0 as [::], which serves IPv4 too
	}
	return "http://" + net.JoinHostPort(host, port)
}

// loadRealm reads the realm file, or the embedded realm when path is empty.
func loadRealm(path string) (*devidp.Realm, error) {
	if path == "" {
		return devidp.DefaultRealm()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read DEVIDP_REALM_FILE: %w", err)
	}
	r, err := devidp.Load(data)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return r, nil
}
