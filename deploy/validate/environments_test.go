package validate

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// generatedSuffix is the content hash kustomize appends to generated ConfigMaps.
var generatedSuffix = regexp.MustCompile(`-[a-z0-9]{10}$`)

// shape lists an overlay's objects by kind and name, hash suffixes removed.
func shape(objs []kube.Object) []string {
	var out []string
	for _, o := range objs {
		name := o.Name
		if o.Kind == "ConfigMap" {
			name = generatedSuffix.ReplaceAllString(name, "")
		}
		if o.Kind != "Namespace" {
			out = append(out, o.Kind+"/"+name)
		}
	}
	slices.Sort(out)
	return out
}

func TestStagingAndProductionDifferOnlyInConfiguration(t *testing.T) {
	t.Parallel()
	staging, production := mustRender(t, "staging"), mustRender(t, "production")
	if s, p := shape(staging), shape(production); !slices.Equal(s, p) {
		t.Fatalf("the overlays deploy different objects:\nstaging    %v\nproduction %v", s, p)
	}
	tests := []struct {
		name string
		of   func(t *testing.T, overlay string) string
	}{
		{"the namespace differs", func(t *testing.T, overlay string) string {
			return overlayNamespace(t, overlay).Name
		}},
		{"the issuer differs", func(t *testing.T, overlay string) string {
			return configMap(t, mustRender(t, overlay), "oidc").Data["OIDC_ISSUER_URL"]
		}},
		{"the signing keys come from each environment's own identity provider", func(t *testing.T, overlay string) string {
			return configMap(t, mustRender(t, overlay), "oidc").Data["OIDC_JWKS_URL"]
		}},
		{"the public host differs", func(t *testing.T, overlay string) string {
			return strings.Join(routeHosts(t, overlay), ",")
		}},
		{"each environment has its own jobs database", func(t *testing.T, overlay string) string {
			c := find[appsv1.Deployment](t, mustRender(t, overlay), "jobs").Spec.Template.Spec.Containers[0]
			return envOf(t, c, "DATABASE_URL").Value
		}},
		{"each environment has its own search-admin database", func(t *testing.T, overlay string) string {
			c := find[appsv1.Deployment](t, mustRender(t, overlay), "search-admin").Spec.Template.Spec.Containers[0]
			return envOf(t, c, "DATABASE_URL").Value
		}},
		{"the autoscaler floor differs", func(t *testing.T, overlay string) string {
			return fmt.Sprint(*find[autoscalingv2.HorizontalPodAutoscaler](t, mustRender(t, overlay), "gateway").Spec.MinReplicas)
		}},
		{"the autoscaler ceiling differs", func(t *testing.T, overlay string) string {
			return fmt.Sprint(find[autoscalingv2.HorizontalPodAutoscaler](t, mustRender(t, overlay), "gateway").Spec.MaxReplicas)
		}},
		{"the memory limit differs", func(t *testing.T, overlay string) string {
			c := find[appsv1.Deployment](t, mustRender(t, overlay), "search-admin").Spec.Template.Spec.Containers[0]
			return c.Resources.Limits.Memory().String()
		}},
		{"the image reference differs (production pins digests)", func(t *testing.T, overlay string) string {
			return find[appsv1.Deployment](t, mustRender(t, overlay), "gateway").Spec.Template.Spec.Containers[0].Image
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, p := tt.of(t, "staging"), tt.of(t, "production")
			if s == "" || s == p {
				t.Errorf("staging %q, production %q: want two different values", s, p)
			}
		})
	}
}

func TestNothingOfOneEnvironmentLeaksIntoTheOther(t *testing.T) {
	t.Parallel()
	for _, pair := range [][2]string{{"production", "staging"}, {"staging", "production"}} {
		from, into := pair[0], pair[1]
		t.Run(fmt.Sprintf("no value only %s's dependencies.yaml holds appears in the %s render or overlay", from, into), func(t *testing.T) {
			t.Parallel()
			own := scalars(t, mustRawDependencies(t, into))
			specific := map[string]bool{}
			for v := range scalars(t, mustRawDependencies(t, from)) {
				if !own[v] {
					specific[v] = true
				}
			}
			if len(specific) == 0 {
				t.Fatalf("%s's dependencies.yaml holds nothing of its own", from)
			}
			for _, o := range mustRender(t, into) {
				for v := range scalars(t, o.Value) {
					if leaked(v, specific) {
						t.Errorf("%s %s of %s holds %q, a value of %s", o.Kind, o.Name, into, v, from)
					}
				}
			}
			files, err := filepath.Glob(filepath.Join(overlayDir(into), "*.yaml"))
			if err != nil || len(files) == 0 {
				t.Fatalf("overlay files: %v", err)
			}
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for v := range specific {
					if strings.ContainsAny(v, "./:") && strings.Contains(string(data), v) {
						t.Errorf("%s names %q, a value of %s", f, v, from)
					}
				}
			}
		})
	}
}

// leaked reports whether v is, or for a host, URL or address contains, one
// of the values of the other environment.
func leaked(v string, other map[string]bool) bool {
	if other[v] {
		return true
	}
	for o := range other {
		if strings.ContainsAny(o, "./:") && strings.Contains(v, o) {
			return true
		}
	}
	return false
}

// mustRawDependencies decodes an overlay's dependencies.yaml generically.
func mustRawDependencies(t *testing.T, overlay string) any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(overlayDir(overlay), "dependencies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// scalars collects every string and number in v (a typed object is
// marshalled first), map keys excluded.
func scalars(t *testing.T, v any) map[string]bool {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(data, &generic); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	var walk func(any)
	walk = func(n any) {
		switch n := n.(type) {
		case map[string]any:
			for _, c := range n {
				walk(c)
			}
		case []any:
			for _, c := range n {
				walk(c)
			}
		case string:
			out[n] = true
		case float64:
			out[fmt.Sprint(n)] = true
		}
	}
	walk(generic)
	return out
}

func TestEachOverlayNamesItsOwnIssuerAndHost(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlayNames {
		t.Run(overlay+" verifies tokens of an https issuer and serves a real host name", func(t *testing.T) {
			t.Parallel()
			oidc := configMap(t, mustRender(t, overlay), "oidc").Data
			issuer, err := url.Parse(oidc["OIDC_ISSUER_URL"])
			if err != nil || issuer.Scheme != "https" || !strings.HasSuffix(issuer.Path, "/auth/realms/municipal") {
				t.Errorf("issuer %q is not an https Keycloak realm URL", oidc["OIDC_ISSUER_URL"])
			}
			if jwks, err := url.Parse(oidc["OIDC_JWKS_URL"]); err != nil || !strings.HasSuffix(jwks.Path, issuer.Path+"/protocol/openid-connect/certs") {
				t.Errorf("JWKS URL %q is not the issuer's realm certs", oidc["OIDC_JWKS_URL"])
			}
			if oidc["OIDC_AUDIENCE"] != "api-gateway" {
				t.Errorf("audience %q, want api-gateway", oidc["OIDC_AUDIENCE"])
			}
			hosts := routeHosts(t, overlay)
			if len(hosts) == 0 || !slices.ContainsFunc(hosts, validHost) {
				t.Errorf("hosts %q are not DNS names", hosts)
			}
		})
	}
}

func TestProductionNeverRunsDevidp(t *testing.T) {
	t.Parallel()
	objs := mustRender(t, "production")
	for _, o := range objs {
		if strings.Contains(o.Name, "devidp") {
			t.Errorf("%s %s belongs to devidp", o.Kind, o.Name)
		}
	}
	for _, w := range workloads(objs) {
		for _, c := range w.template.Spec.Containers {
			if strings.Contains(c.Image, "devidp") {
				t.Errorf("%s %s runs image %s", w.kind, w.name, c.Image)
			}
			for _, e := range c.Env {
				if strings.HasPrefix(e.Name, "DEVIDP_") {
					t.Errorf("%s %s sets %s", w.kind, w.name, e.Name)
				}
			}
		}
	}
	for _, cm := range kube.All[corev1.ConfigMap](objs) {
		for k, v := range cm.Data {
			if strings.HasPrefix(k, "DEVIDP_") || strings.Contains(v, ":8090") || strings.Contains(v, "devidp") {
				t.Errorf("ConfigMap %s %s=%q points at devidp", cm.Name, k, v)
			}
		}
	}
}
