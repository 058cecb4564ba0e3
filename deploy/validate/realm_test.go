package validate

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp"
)

// realmFile is the realm Keycloak imports in docker-compose.yml and devidp embeds.
const realmFile = "pkg/devidp/realm-municipal.json"

func mustLoadRealm(t *testing.T) *devidp.Realm {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), realmFile))
	if err != nil {
		t.Fatalf("read realm: %v", err)
	}
	realm, err := devidp.Load(data)
	if err != nil {
		t.Fatalf("devidp refuses %s: %v", realmFile, err)
	}
	return realm
}

func TestRealmHasTheDevelopmentClientsOfDecisions(t *testing.T) {
	t.Parallel()
	realm := mustLoadRealm(t)
	if realm.Name != "municipal" {
		t.Fatalf("realm %q, want municipal: the issuers end in /realms/municipal", realm.Name)
	}
	tests := []struct {
		client, secret, department string
		scopes                     []string
	}{
		{"catalog-admin", "catalog-admin-secret", "planejamento", []string{"search:services:read", "search:services:write", "search:migrations:read", "search:migrations:write", "search:read"}},
		{"jobs-admin", "jobs-admin-secret", "trabalho", []string{"jobs:read", "jobs:write"}},
		{"reader", "reader-secret", "planejamento", []string{"search:services:read", "search:migrations:read", "search:read", "jobs:read"}},
		{"other-dept", "other-dept-secret", "educacao", []string{"jobs:read", "jobs:write"}},
	}
	if len(realm.Clients) != len(tests) {
		t.Errorf("%d clients, want %d", len(realm.Clients), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.client+" gets tokens for "+tt.department+" by client credentials", func(t *testing.T) {
			t.Parallel()
			c, ok := realm.Client(tt.client)
			if !ok {
				t.Fatalf("no client %s", tt.client)
			}
			if !c.IsEnabled() || c.PublicClient || !c.ServiceAccountsEnabled || c.StandardFlowEnabled || c.Secret != tt.secret {
				t.Errorf("enabled %v, public %v, service accounts %v, standard flow %v, secret %q",
					c.IsEnabled(), c.PublicClient, c.ServiceAccountsEnabled, c.StandardFlowEnabled, c.Secret)
			}
			if got := claimMapper(c.ProtocolMappers, "oidc-hardcoded-claim-mapper", "claim.name", "department")["claim.value"]; got != tt.department {
				t.Errorf("department claim %q, want %q", got, tt.department)
			}
			if claimMapper(c.ProtocolMappers, "oidc-audience-mapper", "included.custom.audience", auth.DefaultAudience) == nil {
				t.Errorf("no access-token audience mapper for %s", auth.DefaultAudience)
			}
			if got := tokenScopes(t, realm, c); !slices.Equal(got, slices.Sorted(slices.Values(tt.scopes))) {
				t.Errorf("scope claim %v, want %v", got, tt.scopes)
			}
			for _, builtin := range []string{"basic", "service_account"} {
				if !slices.Contains(c.DefaultClientScopes, builtin) {
					t.Errorf("default client scopes %v lack %s", c.DefaultClientScopes, builtin)
				}
			}
			if u, ok := realm.ServiceAccount(tt.client); !ok || !u.Enabled {
				t.Error("no enabled service-account user")
			}
		})
	}
}

// claimMapper returns the config of the access-token mapper of type typ whose
// config has key set to value, or nil.
func claimMapper(mappers []devidp.ProtocolMapper, typ, key, value string) map[string]string {
	for _, m := range mappers {
		if m.ProtocolMapper == typ && m.Config[key] == value && m.Config["access.token.claim"] == "true" {
			return m.Config
		}
	}
	return nil
}

// tokenScopes returns, sorted, the scopes a client's token lists in its scope claim.
func tokenScopes(t *testing.T, realm *devidp.Realm, c *devidp.Client) []string {
	t.Helper()
	var out []string
	for _, name := range c.DefaultClientScopes {
		s, ok := realm.Scope(name)
		if !ok {
			t.Fatalf("client scope %s is not defined", name)
		}
		if s.InTokenScope() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func TestRealmDefinesKeycloaksBuiltInScopes(t *testing.T) {
	t.Parallel()
	realm := mustLoadRealm(t)
	tests := []struct {
		name, scope, mapperType, key, value string
	}{
		{"basic puts sub in tokens", "basic", "oidc-sub-mapper", "access.token.claim", "true"},
		{"service_account puts client_id in tokens", "service_account", "oidc-usersessionmodel-note-mapper", "claim.name", "client_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, ok := realm.Scope(tt.scope)
			if !ok {
				t.Fatalf("realm defines no client scope %s; a realm import with clientScopes does not create it", tt.scope)
			}
			if s.Protocol != "openid-connect" || s.InTokenScope() {
				t.Errorf("protocol %q, in scope claim %v; want openid-connect, kept out of the claim", s.Protocol, s.InTokenScope())
			}
			if claimMapper(s.ProtocolMappers, tt.mapperType, tt.key, tt.value) == nil {
				t.Errorf("no %s access-token mapper with %s=%s", tt.mapperType, tt.key, tt.value)
			}
		})
	}
}
