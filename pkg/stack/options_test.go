package stack

import (
	"strings"
	"testing"
)

func TestOptionsRefuseProgramsThatCannotStart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		programs []string
		wantErr  string
	}{
		{"every program starts when none is named", nil, ""},
		{"the identity provider starts alone", []string{IdP}, ""},
		{"the services start with the identity provider", []string{IdP, Jobs, SearchAdmin}, ""},
		{"a service without the identity provider is refused", []string{Jobs}, "identity provider"},
		{"the gateway without both services is refused", []string{IdP, Jobs, Gateway}, "both services"},
		{"an unknown program is refused", []string{IdP, "keycloak"}, `"keycloak"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Options{Programs: tt.programs}.check()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("check(%v) = %v, want an error containing %q", tt.programs, err, tt.wantErr)
			}
		})
	}
}
