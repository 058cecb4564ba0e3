package validate

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// loadCompose loads docker-compose.yml with the compose-spec loader, as
// `docker compose` does, with an empty environment so defaults apply.
var loadCompose = sync.OnceValues(func() (*types.Project, error) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return nil, err
	}
	details := types.ConfigDetails{
		WorkingDir:  root,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(root, "docker-compose.yml")}},
		Environment: types.Mapping{},
	}
	return loader.LoadWithContext(context.Background(), details, func(o *loader.Options) {
		o.SkipResolveEnvironment = true
	})
})

func mustLoadCompose(t *testing.T) *types.Project {
	t.Helper()
	p, err := loadCompose()
	if err != nil {
		t.Fatalf("load docker-compose.yml: %v", err)
	}
	return p
}

// service returns the compose service called name.
func service(t *testing.T, p *types.Project, name string) types.ServiceConfig {
	t.Helper()
	s, ok := p.Services[name]
	if !ok {
		t.Fatalf("docker-compose.yml has no service %q", name)
	}
	return s
}

// env returns the value of an environment variable of s, or "".
func env(s types.ServiceConfig, name string) string {
	if v := s.Environment[name]; v != nil {
		return *v
	}
	return ""
}

// listenPort returns the port of a listen address such as ":8081".
func listenPort(t *testing.T, addr string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		t.Fatalf("listen address %q has no port: %v", addr, err)
	}
	return port
}

// migrations maps each one-shot migration service to the program it runs.
var migrations = map[string]string{"search-admin-migrate": "search-admin", "jobs-migrate": "jobs"}

// tracingBackends are the services that receive the programs' spans. Their
// images have no shell or HTTP client to run a healthcheck with, and nothing
// may wait for them: a program drops the spans it cannot export.
var tracingBackends = map[string]bool{"otel-collector": true, "jaeger": true}

// programOf returns the program a compose service builds, or "" for third-party images.
func programOf(s types.ServiceConfig) string {
	if s.Build == nil || s.Build.Args["PROGRAM"] == nil {
		return ""
	}
	return *s.Build.Args["PROGRAM"]
}

// isDatabaseURLFor reports whether raw is a Postgres URL on the compose
// network's postgres for database db.
func isDatabaseURLFor(raw, db string) bool {
	return strings.HasPrefix(raw, "postgres://") && strings.Contains(raw, "@postgres:5432/"+db+"?")
}
