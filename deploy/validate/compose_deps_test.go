package validate

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// TestComposeDepsPublishWhatMakeTestExpects loads docker-compose.yml with
// deploy/compose/deps.yml, as scripts/deps.sh does on a machine that can
// only run containers, and checks that Postgres and Redis come up where the
// tests look for them.
func TestComposeDepsPublishWhatMakeTestExpects(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	details := types.ConfigDetails{
		WorkingDir: root,
		ConfigFiles: []types.ConfigFile{
			{Filename: filepath.Join(root, "docker-compose.yml")},
			{Filename: filepath.Join(root, "deploy", "compose", "deps.yml")},
		},
		Environment: types.Mapping{},
	}
	p, err := loader.LoadWithContext(context.Background(), details, func(o *loader.Options) { o.SkipResolveEnvironment = true })
	if err != nil {
		t.Fatalf("load docker-compose.yml with deploy/compose/deps.yml: %v", err)
	}
	published := func(s types.ServiceConfig, port uint32) bool {
		for _, pc := range s.Ports {
			if pc.HostIP == "127.0.0.1" && pc.Published == fmt.Sprint(port) && pc.Target == port {
				return true
			}
		}
		return false
	}
	pg, redis := service(t, p, "postgres"), service(t, p, "redis")
	t.Run("postgres is on 127.0.0.1:5432 and trusts user postgres", func(t *testing.T) {
		if !published(pg, 5432) || env(pg, "POSTGRES_HOST_AUTH_METHOD") != "trust" {
			t.Errorf("ports %v, POSTGRES_HOST_AUTH_METHOD %q", pg.Ports, env(pg, "POSTGRES_HOST_AUTH_METHOD"))
		}
	})
	t.Run("postgres keeps its data apart from the stack's password-protected volume", func(t *testing.T) {
		var sources []string
		for _, v := range pg.Volumes {
			if v.Target == "/var/lib/postgresql/data" {
				sources = append(sources, v.Source)
			}
		}
		if len(sources) != 1 || sources[0] != "deps-postgres-data" {
			t.Errorf("data volumes %v, want only deps-postgres-data", sources)
		}
	})
	t.Run("redis is on 127.0.0.1:6379", func(t *testing.T) {
		if !published(redis, 6379) {
			t.Errorf("ports %v", redis.Ports)
		}
	})
}
