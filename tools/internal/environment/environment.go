// Package environment names the deployments of the municipal services API
// and the base URLs of each, so that tools address them by name.
package environment

import (
	"fmt"
	"slices"
	"strings"
)

// Names of the known deployments.
const (
	Local      = "local"
	Staging    = "staging"
	Production = "production"
)

// Realm is the identity provider realm of every deployment.
const Realm = "municipal"

// Environment is one deployment: the base URLs of both API areas and of the
// identity provider.
type Environment struct {
	Name string
	// SearchURL is {search_base_url}, JobsURL is {go_base_url} and AuthURL is
	// {auth_url} of the API document.
	SearchURL, JobsURL, AuthURL string
}

// known holds the deployments: local is `make run`, the others the ingress
// hosts of the k8s overlays.
var known = map[string]Environment{
	Local: {Name: Local, SearchURL: "http://127.0.0.1:8080/search", JobsURL: "http://127.0.0.1:8080/go/v1", AuthURL: "http://127.0.0.1:8090"},
	Staging: {Name: Staging, SearchURL: "https://api.staging.municipal.example/search",
		JobsURL: "https://api.staging.municipal.example/go/v1", AuthURL: "https://auth.staging.municipal.example"},
	Production: {Name: Production, SearchURL: "https://api.municipal.example/search",
		JobsURL: "https://api.municipal.example/go/v1", AuthURL: "https://auth.municipal.example"},
}

// Lookup returns the deployment called name.
func Lookup(name string) (Environment, error) {
	e, ok := known[name]
	if !ok {
		return Environment{}, fmt.Errorf("unknown environment %q (use %s)", name, strings.Join(Names(), ", "))
	}
	return e, nil
}

// Names lists the known deployments in alphabetical order.
func Names() []string {
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
