package validate

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
)

func TestComposeRunsTheWholeStack(t *testing.T) {
	t.Parallel()
	p := mustLoadCompose(t)
	want := []string{"gateway", "jaeger", "jobs", "jobs-migrate", "keycloak", "otel-collector", "postgres", "redis", "search-admin", "search-admin-migrate"}
	if got := slices.Sorted(maps.Keys(p.Services)); !slices.Equal(got, want) {
		t.Fatalf("services = %v, want %v", got, want)
	}
}

func TestComposeDependencies(t *testing.T) {
	t.Parallel()
	p := mustLoadCompose(t)
	healthy, done := types.ServiceConditionHealthy, types.ServiceConditionCompletedSuccessfully
	tests := []struct {
		service string
		want    map[string]string
	}{
		{"search-admin-migrate", map[string]string{"postgres": healthy}},
		{"jobs-migrate", map[string]string{"postgres": healthy}},
		{"search-admin", map[string]string{"search-admin-migrate": done, "postgres": healthy, "keycloak": healthy}},
		{"jobs", map[string]string{"jobs-migrate": done, "postgres": healthy, "keycloak": healthy}},
		{"gateway", map[string]string{"search-admin": healthy, "jobs": healthy, "redis": healthy, "keycloak": healthy}},
		{"postgres", map[string]string{}},
		{"redis", map[string]string{}},
		{"keycloak", map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.service+" starts only after what it needs is ready", func(t *testing.T) {
			t.Parallel()
			got := map[string]string{}
			for dep, d := range service(t, p, tt.service).DependsOn {
				got[dep] = d.Condition
				target := service(t, p, dep)
				if d.Condition == healthy && (target.HealthCheck == nil || target.HealthCheck.Disable) {
					t.Errorf("waits for %s to be healthy, but it has no healthcheck", dep)
				}
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("depends_on = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestComposeHealthchecks(t *testing.T) {
	t.Parallel()
	p := mustLoadCompose(t)
	for name, s := range p.Services {
		_, oneShot := migrations[name]
		if tracingBackends[name] {
			continue // TestComposeSendsTracesToJaeger
		}
		t.Run(name+" reports its health, unless it is a one-shot", func(t *testing.T) {
			t.Parallel()
			hc := s.HealthCheck
			if oneShot {
				if hc != nil || s.Restart != types.RestartPolicyNo {
					t.Errorf("one-shot has healthcheck %v and restart %q, want none and no", hc, s.Restart)
				}
				return
			}
			if hc == nil || hc.Disable || len(hc.Test) < 2 || hc.Interval == nil || hc.Retries == nil {
				t.Fatalf("healthcheck %+v is missing or incomplete", hc)
			}
			if programOf(s) == "" {
				return
			}
			admin := listenPort(t, env(s, "ADMIN_ADDR"))
			want := []string{"CMD", "/usr/local/bin/probe", fmt.Sprintf("http://127.0.0.1:%s/readyz", admin)}
			if !slices.Equal(hc.Test, want) {
				t.Errorf("healthcheck %q, want %q: readiness is on the admin listener", hc.Test, want)
			}
			if admin == listenPort(t, env(s, "HTTP_ADDR")) {
				t.Errorf("ADMIN_ADDR and HTTP_ADDR share port %s", admin)
			}
			for _, p := range s.Ports {
				if fmt.Sprint(p.Target) == admin {
					t.Errorf("the admin port %s is published: probes and metrics stay inside", admin)
				}
			}
		})
	}
}

// published is a port a compose service publishes on the laptop.
type published struct {
	service   string
	published string
	target    uint32
}

func TestComposePublishesPortsOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	p := mustLoadCompose(t)
	tests := []published{
		{"gateway", "8080", 8080},
		{"search-admin", "8081", 8081},
		{"jobs", "8082", 8082},
		{"keycloak", "8180", 8080},
		{"jaeger", "16686", 16686},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s is on 127.0.0.1:%s", tt.service, tt.published), func(t *testing.T) {
			t.Parallel()
			ports := service(t, p, tt.service).Ports
			if len(ports) != 1 || ports[0].HostIP != "127.0.0.1" || ports[0].Published != tt.published || ports[0].Target != tt.target {
				t.Errorf("ports = %+v, want 127.0.0.1:%s->%d", ports, tt.published, tt.target)
			}
		})
	}
	for name, s := range p.Services {
		if !slices.ContainsFunc(tests, func(tt published) bool { return tt.service == name }) && len(s.Ports) > 0 {
			t.Errorf("%s publishes %+v; only those above may", name, s.Ports)
		}
	}
}

func TestComposeBuildsEveryProgramFromTheDockerfile(t *testing.T) {
	t.Parallel()
	p := mustLoadCompose(t)
	for name, s := range p.Services {
		program := programOf(s)
		if program == "" {
			t.Run(name+" runs a pinned third-party image", func(t *testing.T) {
				t.Parallel()
				if err := imagePinned(s.Image); err != nil {
					t.Error(err)
				}
			})
			continue
		}
		t.Run(name+" builds "+program+" hardened like the Kubernetes pods", func(t *testing.T) {
			t.Parallel()
			if want, ok := migrations[name]; (ok && want != program) || (!ok && name != program) {
				t.Errorf("service %s builds PROGRAM=%s", name, program)
			}
			if s.Build.Dockerfile != "Dockerfile" || filepath.Base(s.Build.Context) != filepath.Base(repoRoot(t)) {
				t.Errorf("build %s in %s, want the root Dockerfile", s.Build.Dockerfile, s.Build.Context)
			}
			if s.Image != "municipal-apis/"+program+":dev" {
				t.Errorf("image %q, want municipal-apis/%s:dev", s.Image, program)
			}
			if !s.ReadOnly || !slices.Contains(s.CapDrop, "ALL") || !slices.Contains(s.SecurityOpt, "no-new-privileges:true") {
				t.Errorf("read_only %v, cap_drop %v, security_opt %v", s.ReadOnly, s.CapDrop, s.SecurityOpt)
			}
			if s.User == "" || strings.HasPrefix(s.User, "0") || strings.HasPrefix(s.User, "root") {
				t.Errorf("user %q is root", s.User)
			}
		})
	}
}

func TestComposeKeycloakServesTheSharedRealmUnderAuth(t *testing.T) {
	t.Parallel()
	p := mustLoadCompose(t)
	kc := service(t, p, "keycloak")
	if tag := kc.Image[strings.LastIndex(kc.Image, ":")+1:]; !strings.HasPrefix(kc.Image, "quay.io/keycloak/keycloak:") || !strings.HasPrefix(tag, "26.") || strings.Count(tag, ".") != 2 {
		t.Errorf("image %s is not a pinned quay.io/keycloak/keycloak 26.x.y", kc.Image)
	}
	if !slices.Equal(kc.Command, []string{"start-dev", "--import-realm"}) {
		t.Errorf("command %q", kc.Command)
	}
	hc := strings.Join(kc.HealthCheck.Test, " ")
	if !strings.Contains(hc, "/dev/tcp/127.0.0.1/9000") || !strings.Contains(hc, "GET /health/ready ") || !strings.Contains(hc, "' 200 '") {
		t.Errorf("healthcheck %q does not ask the management port for /health/ready and a 200", hc)
	}
	for k, want := range map[string]string{"KC_HTTP_RELATIVE_PATH": "/auth", "KC_HEALTH_ENABLED": "true", "KC_HOSTNAME": "http://localhost:8180/auth", "KC_HTTP_MANAGEMENT_RELATIVE_PATH": "/"} {
		if got := env(kc, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	root := repoRoot(t)
	if !slices.ContainsFunc(kc.Volumes, func(v types.ServiceVolumeConfig) bool {
		return v.Source == filepath.Join(root, "pkg", "devidp", "realm-municipal.json") &&
			filepath.Dir(v.Target) == "/opt/keycloak/data/import" && v.ReadOnly
	}) {
		t.Errorf("volumes %+v do not mount pkg/devidp/realm-municipal.json read-only into the import folder", kc.Volumes)
	}
}

func TestComposeProgramsTrustKeycloakTokens(t *testing.T) {
	t.Parallel()
	p := mustLoadCompose(t)
	issuer := env(service(t, p, "keycloak"), "KC_HOSTNAME") + "/realms/municipal"
	for _, name := range []string{"gateway", "search-admin", "jobs"} {
		t.Run(name+" accepts the issuer laptops and containers both see", func(t *testing.T) {
			t.Parallel()
			s := service(t, p, name)
			if got := env(s, "OIDC_ISSUER_URL"); got != issuer {
				t.Errorf("OIDC_ISSUER_URL %q, want %q", got, issuer)
			}
			jwks, err := url.Parse(env(s, "OIDC_JWKS_URL"))
			if err != nil || jwks.Host != "keycloak:8080" || jwks.Path != "/auth/realms/municipal/protocol/openid-connect/certs" {
				t.Errorf("OIDC_JWKS_URL %q is not Keycloak's certs on the compose network", env(s, "OIDC_JWKS_URL"))
			}
			if env(s, "OIDC_AUDIENCE") != "api-gateway" {
				t.Errorf("OIDC_AUDIENCE %q", env(s, "OIDC_AUDIENCE"))
			}
		})
	}
}

func TestComposeWiresDatabasesRedisAndRoutes(t *testing.T) {
	t.Parallel()
	p := mustLoadCompose(t)
	databases := map[string]string{"search-admin": "search_admin", "search-admin-migrate": "search_admin", "jobs": "jobs", "jobs-migrate": "jobs"}
	for name, db := range databases {
		t.Run(name+" uses database "+db, func(t *testing.T) {
			t.Parallel()
			if got := env(service(t, p, name), "DATABASE_URL"); !isDatabaseURLFor(got, db) {
				t.Errorf("DATABASE_URL %q is not database %s on postgres", got, db)
			}
		})
	}
	t.Run("the gateway routes each prefix to the right service and port", func(t *testing.T) {
		t.Parallel()
		gw := service(t, p, "gateway")
		want := map[string]string{"/search": "search-admin", "/go/v1": "jobs"}
		for _, route := range strings.Split(env(gw, "ROUTES"), ",") {
			prefix, target, _ := strings.Cut(route, "=")
			u, err := url.Parse(target)
			if err != nil || u.Hostname() != want[prefix] {
				t.Errorf("route %q leads to %q, want service %q", prefix, target, want[prefix])
				continue
			}
			if port := listenPort(t, env(service(t, p, u.Hostname()), "HTTP_ADDR")); u.Port() != port {
				t.Errorf("route %q uses port %s, the service listens on %s", prefix, u.Port(), port)
			}
			delete(want, prefix)
		}
		if len(want) > 0 {
			t.Errorf("routes missing for %v", want)
		}
		if r := env(gw, "REDIS_URL"); r != "redis://redis:6379/0" {
			t.Errorf("REDIS_URL %q", r)
		}
		for _, k := range []string{"RATE_LIMIT_UNAUTHENTICATED", "RATE_LIMIT_PER_CLIENT", "RATE_LIMIT_PER_DEPARTMENT"} {
			if !rateFormat.MatchString(env(gw, k)) {
				t.Errorf("%s = %q, want the 100-M form", k, env(gw, k))
			}
		}
	})
	t.Run("postgres creates both databases when first initialised", func(t *testing.T) {
		t.Parallel()
		sql := initScript(t, service(t, p, "postgres"))
		for _, db := range []string{"search_admin", "jobs"} {
			if !strings.Contains(sql, "CREATE DATABASE "+db+";") {
				t.Errorf("init script does not create %s:\n%s", db, sql)
			}
		}
	})
}

// initScript reads the SQL file mounted into Postgres' init folder.
func initScript(t *testing.T, pg types.ServiceConfig) string {
	t.Helper()
	for _, v := range pg.Volumes {
		if filepath.Dir(v.Target) == "/docker-entrypoint-initdb.d" && strings.HasSuffix(v.Target, ".sql") {
			data, err := os.ReadFile(v.Source)
			if err != nil {
				t.Fatalf("read init script: %v", err)
			}
			return string(data)
		}
	}
	t.Fatal("postgres mounts no init script")
	return ""
}

func TestAnEditedRealmReachesKeycloakThroughUpFresh(t *testing.T) {
	t.Parallel()
	kc := service(t, mustLoadCompose(t), "keycloak")
	t.Run("nothing keeps Keycloak's database across containers", func(t *testing.T) {
		for _, v := range kc.Volumes {
			if v.Target == "/opt/keycloak/data" || strings.HasPrefix(v.Target, "/opt/keycloak/data/h2") {
				t.Errorf("volume %s on %s keeps the imported realm: a new container would skip the edited file", v.Source, v.Target)
			}
		}
	})
	t.Run("make up-fresh recreates the Keycloak container and waits for it", func(t *testing.T) {
		recipe := submatches(regexp.MustCompile(`(?m)^(up-fresh):.*\n\t(.+)$`), readRepoFile(t, "Makefile"))["up-fresh"]
		for _, want := range []string{"docker compose up", "--force-recreate", "--no-deps", "--wait", " keycloak"} {
			if !strings.Contains(recipe, want) {
				t.Errorf("up-fresh runs %q, which lacks %q", recipe, want)
			}
		}
	})
}
