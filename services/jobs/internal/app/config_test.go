package app_test

import (
	"context"
	"testing"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/services/jobs/internal/app"
)

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	defaultDatabaseURL := app.Defaults["DATABASE_URL"]
	tests := []struct {
		name    string
		env     map[string]string
		addr    string
		dbURL   string
		wantErr bool
	}{
		{"an empty environment gets the jobs defaults", map[string]string{}, ":8082", defaultDatabaseURL, false},
		{"variables override the defaults", map[string]string{"HTTP_ADDR": "127.0.0.1:9000", "DATABASE_URL": "postgres://db/x"}, "127.0.0.1:9000", "postgres://db/x", false},
		{"a duration that is not one is refused", map[string]string{"HTTP_READ_TIMEOUT": "soon"}, "", "", true},
		{"a zero body limit is refused", map[string]string{"HTTP_MAX_BODY_BYTES": "0"}, "", "", true},
		{"a negative idempotency TTL is refused", map[string]string{"IDEMPOTENCY_TTL": "-1h"}, "", "", true},
		{"a negative clock skew is refused", map[string]string{"OIDC_CLOCK_SKEW": "-1s"}, "", "", true},
		{"a relative issuer is refused", map[string]string{"OIDC_ISSUER_URL": "/auth/realms/municipal"}, "", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(tc.env))
			if tc.wantErr {
				if err == nil {
					t.Fatalf("accepted %v", tc.env)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.HTTP.Addr != tc.addr || cfg.DB.URL != tc.dbURL || cfg.OIDC.Audience != "api-gateway" {
				t.Errorf("addr %q db %q audience %q", cfg.HTTP.Addr, cfg.DB.URL, cfg.OIDC.Audience)
			}
			if cfg.OIDC.RefreshInterval != auth.DefaultRefreshInterval || cfg.OIDC.ClockSkew != auth.DefaultClockSkew || cfg.OIDC.MaxTokenLifetime != auth.DefaultMaxTokenLifetime {
				t.Errorf("oidc %+v lacks the shared defaults", cfg.OIDC)
			}
			if cfg.Idempotency.TTL != idempotency.DefaultTTL {
				t.Errorf("idempotency TTL %v, want %v", cfg.Idempotency.TTL, idempotency.DefaultTTL)
			}
		})
	}
}
