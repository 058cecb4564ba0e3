package validate

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/deploy/internal/kube"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
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
		{"the issuer differs", func(t *testing.T, overlay string) string {
			return configMap(t, mustRender(t, overlay), "oidc").Data["OIDC_ISSUER_URL"]
		}},
		{"the public host differs", func(t *testing.T, overlay string) string {
			return strings.Join(ingressHosts(t, overlay), ",")
		}},
		{"the gateway replicas differ", func(t *testing.T, overlay string) string {
			return fmt.Sprint(*find[appsv1.Deployment](t, mustRender(t, overlay), "gateway").Spec.Replicas)
		}},
		{"the autoscaler ceiling differs", func(t *testing.T, overlay string) string {
			return fmt.Sprint(find[autoscalingv2.HorizontalPodAutoscaler](t, mustRender(t, overlay), "gateway").Spec.MaxReplicas)
		}},
		{"the memory limit differs", func(t *testing.T, overlay string) string {
			c := find[appsv1.Deployment](t, mustRender(t, overlay), "search-admin").Spec.Template.Spec.Containers[0]
			return c.Resources.Limits.Memory().String()
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
			hosts := ingressHosts(t, overlay)
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
