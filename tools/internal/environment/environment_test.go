package environment_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/tools/internal/environment"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, env, wantSearch, wantErr string
	}{
		{"local is the stack of make run", "local", "http://127.0.0.1:8080/search", ""},
		{"staging is the staging ingress", "staging", "https://api.staging.municipal.example/search", ""},
		{"production is the production ingress", "production", "https://api.municipal.example/search", ""},
		{"an unknown name lists the known ones", "prod", "", "use local, production, staging"},
		{"names are case-sensitive", "Local", "", "unknown environment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := environment.Lookup(tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || e.SearchURL != tt.wantSearch || e.Name != tt.env {
				t.Fatalf("Lookup(%q) = %+v, %v", tt.env, e, err)
			}
			if !strings.HasSuffix(e.JobsURL, "/go/v1") || e.AuthURL == "" {
				t.Errorf("%+v: jobs URL must end in /go/v1 and the auth URL be set", e)
			}
		})
	}
	if got := environment.Names(); !slices.Equal(got, []string{"local", "production", "staging"}) {
		t.Errorf("Names() = %v", got)
	}
}
