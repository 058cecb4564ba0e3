package main

import (
	"context"
	"fmt"
	"net"
	"os"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/devidp"
	"github.com/municipal-apis/platform/pkg/server"
)

// config is devidp's configuration, read from the environment.
type config struct {
	Addr             string `env:"DEVIDP_ADDR, default=127.0.0.1:8090"`
	IssuerBase       string `env:"DEVIDP_ISSUER_BASE, default=http://127.0.0.1:8090"`
	RealmFile        string `env:"DEVIDP_REALM_FILE"` // empty: the embedded realm
	AllowNonLoopback bool   `env:"DEVIDP_ALLOW_NON_LOOPBACK, default=false"`
	HTTP             server.Config
	Log              server.LogConfig
}

// loadConfig reads and validates the configuration from l.
func loadConfig(ctx context.Context, l envconfig.Lookuper) (config, error) {
	var cfg config
	if err := envconfig.ProcessWith(ctx, &envconfig.Config{Target: &cfg, Lookuper: l}); err != nil {
		return cfg, fmt.Errorf("read configuration: %w", err)
	}
	cfg.HTTP.Addr = cfg.Addr
	if err := cfg.HTTP.Validate(); err != nil {
		return cfg, fmt.Errorf("invalid configuration: %w", err)
	}
	if !cfg.AllowNonLoopback && !isLoopback(cfg.Addr) {
		return cfg, fmt.Errorf("DEVIDP_ADDR %q is not a loopback address; devidp hands out tokens to anyone who can reach it, "+
			"so set DEVIDP_ALLOW_NON_LOOPBACK=true only inside an isolated network such as a container", cfg.Addr)
	}
	return cfg, nil
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
