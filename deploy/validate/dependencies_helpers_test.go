package validate

import (
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// placeholder marks, in k8s/base and k8s/components, a value the overlay's
// dependencies.yaml must replace.
const placeholder = "from-dependencies.yaml"

// neighbour is one dependency reached through a NetworkPolicy.
type neighbour struct {
	Namespace   string            `json:"namespace"`
	PodSelector map[string]string `json:"podSelector"`
	Port        int32             `json:"port"`
}

// database is the Postgres of one service.
type database struct {
	neighbour     `json:",inline"`
	URL           string `json:"url"`
	OwnerSecret   string `json:"ownerSecret"`
	RuntimeSecret string `json:"runtimeSecret"`
}

// dependencies is the schema of k8s/overlays/*/dependencies.yaml.
type dependencies struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Databases struct {
			SearchAdmin database `json:"searchAdmin"`
			Jobs        database `json:"jobs"`
		} `json:"databases"`
		Redis struct {
			neighbour `json:",inline"`
			URLSecret string `json:"urlSecret"`
		} `json:"redis"`
		IdentityProvider struct {
			neighbour `json:",inline"`
			IssuerURL string `json:"issuerURL"`
			JWKSURL   string `json:"jwksURL"`
		} `json:"identityProvider"`
		Edge struct {
			Host    string `json:"host"`
			Gateway struct {
				Name        string `json:"name"`
				Namespace   string `json:"namespace"`
				SectionName string `json:"sectionName"`
			} `json:"gateway"`
			Controller struct {
				Namespace      string            `json:"namespace"`
				PodSelector    map[string]string `json:"podSelector"`
				TrustedProxies string            `json:"trustedProxies"`
			} `json:"controller"`
		} `json:"edge"`
		Monitoring struct {
			Namespace   string            `json:"namespace"`
			PodSelector map[string]string `json:"podSelector"`
		} `json:"monitoring"`
		DNS struct {
			Namespace     string            `json:"namespace"`
			PodSelector   map[string]string `json:"podSelector"`
			NodeLocalCIDR string            `json:"nodeLocalCIDR"`
			ServiceCIDR   string            `json:"serviceCIDR"`
		} `json:"dns"`
	} `json:"spec"`
}

// databaseOf returns the inputs of the database of a service.
func (d *dependencies) databaseOf(service string) database {
	if service == "jobs" {
		return d.Spec.Databases.Jobs
	}
	return d.Spec.Databases.SearchAdmin
}

// mustDependencies strictly decodes an overlay's dependencies.yaml: a
// misspelt input fails here instead of leaving a placeholder behind.
func mustDependencies(t testing.TB, overlay string) *dependencies {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(overlayDir(overlay), "dependencies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var d dependencies
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		t.Fatalf("%s dependencies.yaml: %v", overlay, err)
	}
	if d.Kind != "Dependencies" || d.Metadata.Annotations["config.kubernetes.io/local-config"] != "true" {
		t.Fatalf("%s dependencies.yaml is not a local-config Dependencies object", overlay)
	}
	return &d
}
