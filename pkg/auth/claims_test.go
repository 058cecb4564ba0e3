package auth_test

import (
	"context"
	"testing"

	"github.com/municipal-apis/platform/pkg/auth"
)

func TestDisplayName(t *testing.T) {
	tests := []struct {
		name   string
		claims auth.Claims
		want   string
	}{
		{"prefers the name", auth.Claims{Name: "Maria", PreferredUsername: "maria", ClientID: "portal"}, "Maria"},
		{"falls back to preferred_username", auth.Claims{PreferredUsername: "service-account-reader", ClientID: "reader"}, "service-account-reader"},
		{"falls back to the client id", auth.Claims{ClientID: "reader"}, "reader"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.claims.DisplayName(); got != tt.want {
				t.Errorf("DisplayName() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHasScope(t *testing.T) {
	c := &auth.Claims{Scopes: []string{"jobs:read", "search:read"}}
	tests := []struct {
		name   string
		claims *auth.Claims
		scope  string
		want   bool
	}{
		{"grants a listed scope", c, "jobs:read", true},
		{"does not grant an unlisted scope", c, "jobs:write", false},
		{"does not grant a prefix of a scope", c, "jobs", false},
		{"nil claims grant nothing", nil, "jobs:read", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.claims.HasScope(tt.scope); got != tt.want {
				t.Errorf("HasScope(%q) = %v, want %v", tt.scope, got, tt.want)
			}
		})
	}
}

func TestClaimsTravelInTheContext(t *testing.T) {
	if _, ok := auth.ClaimsFrom(context.Background()); ok {
		t.Fatal("an empty context has claims")
	}
	want := &auth.Claims{ClientID: "reader"}
	got, ok := auth.ClaimsFrom(auth.WithClaims(context.Background(), want))
	if !ok || got != want {
		t.Errorf("ClaimsFrom() = %v, %v; want the stored claims", got, ok)
	}
}
