package devidp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/devidp"
)

// decisions is the dev-realm table of docs/decisions.md#realm-clients-and-scopes.
var decisions = []struct {
	client, secret, department string
	scopes                     []string
}{
	{"catalog-admin", "catalog-admin-secret", "planejamento", []string{"search:services:read", "search:services:write", "search:migrations:read", "search:migrations:write", "search:read"}},
	{"jobs-admin", "jobs-admin-secret", "trabalho", []string{"jobs:read", "jobs:write"}},
	{"reader", "reader-secret", "planejamento", []string{"search:services:read", "search:migrations:read", "search:read", "jobs:read"}},
	{"other-dept", "other-dept-secret", "educacao", []string{"jobs:read", "jobs:write"}},
}

func mustDefaultRealm(t *testing.T) *devidp.Realm {
	t.Helper()
	r, err := devidp.DefaultRealm()
	if err != nil {
		t.Fatalf("DefaultRealm: %v", err)
	}
	return r
}

// mapperOf returns the first mapper of type typ in ms.
func mapperOf(ms []devidp.ProtocolMapper, typ string) (devidp.ProtocolMapper, bool) {
	i := slices.IndexFunc(ms, func(m devidp.ProtocolMapper) bool { return m.ProtocolMapper == typ })
	if i < 0 {
		return devidp.ProtocolMapper{}, false
	}
	return ms[i], true
}

func TestTheEmbeddedRealmIsTheMunicipalDevelopmentRealm(t *testing.T) {
	r := mustDefaultRealm(t)
	if r.Name != "municipal" || !r.Enabled || r.AccessTokenLifespan != 300 {
		t.Errorf("realm = %q enabled=%v lifespan=%d, want municipal, true, 300", r.Name, r.Enabled, r.AccessTokenLifespan)
	}
	if len(r.Clients) != len(decisions) {
		t.Errorf("the realm has %d clients, want %d", len(r.Clients), len(decisions))
	}
}

func TestTheEmbeddedRealmDefinesKeycloaksBuiltInScopes(t *testing.T) {
	r := mustDefaultRealm(t)
	tests := []struct {
		scope, mapper, setting, want string
	}{
		{"basic", "oidc-sub-mapper", "access.token.claim", "true"},
		{"basic", "oidc-usersessionmodel-note-mapper", "claim.name", "auth_time"},
		{"service_account", "oidc-usersessionmodel-note-mapper", "claim.name", "client_id"},
		{"profile", "oidc-usermodel-attribute-mapper", "claim.name", "preferred_username"},
	}
	for _, tt := range tests {
		t.Run(tt.scope+" has "+tt.mapper, func(t *testing.T) {
			s, ok := r.Scope(tt.scope)
			if !ok {
				t.Fatalf("client scope %q is not defined", tt.scope)
			}
			if s.InTokenScope() || s.Protocol != "openid-connect" {
				t.Errorf("scope %q: in token scope=%v protocol=%q; want false, openid-connect", tt.scope, s.InTokenScope(), s.Protocol)
			}
			m, ok := mapperOf(s.ProtocolMappers, tt.mapper)
			if !ok || m.Config[tt.setting] != tt.want {
				t.Errorf("mapper %s: %s = %q, want %q", tt.mapper, tt.setting, m.Config[tt.setting], tt.want)
			}
		})
	}
	t.Run("service_account also maps clientHost and clientAddress", func(t *testing.T) {
		s, _ := r.Scope("service_account")
		var claims []string
		for _, m := range s.ProtocolMappers {
			claims = append(claims, m.Config["claim.name"])
		}
		if !slices.Equal(claims, []string{"client_id", "clientHost", "clientAddress"}) {
			t.Errorf("service_account claims = %q", claims)
		}
	})
}

func TestTheEmbeddedRealmMatchesDecisions(t *testing.T) {
	r := mustDefaultRealm(t)
	for _, d := range decisions {
		t.Run(d.client, func(t *testing.T) {
			c, ok := r.Client(d.client)
			if !ok {
				t.Fatalf("client %q is missing", d.client)
			}
			if !c.IsEnabled() || !c.ServiceAccountsEnabled || c.StandardFlowEnabled || c.PublicClient ||
				c.ClientAuthenticatorType != "client-secret" || c.Secret != d.secret {
				t.Errorf("client settings = %+v", c)
			}
			wantDefaults := append([]string{"basic", "service_account", "profile"}, d.scopes...)
			if !slices.Equal(c.DefaultClientScopes, wantDefaults) || len(c.OptionalClientScopes) != 0 {
				t.Errorf("default scopes %q, optional %q; want %q and none", c.DefaultClientScopes, c.OptionalClientScopes, wantDefaults)
			}
			for _, name := range d.scopes {
				if s, ok := r.Scope(name); !ok || !s.InTokenScope() || s.Protocol != "openid-connect" {
					t.Errorf("scope %q is missing or not listed in tokens", name)
				}
			}
			dept, ok := mapperOf(c.ProtocolMappers, "oidc-hardcoded-claim-mapper")
			if !ok || dept.Config["claim.name"] != "department" || dept.Config["claim.value"] != d.department ||
				dept.Config["access.token.claim"] != "true" || dept.Config["jsonType.label"] != "String" {
				t.Errorf("department mapper = %+v, want department=%s", dept, d.department)
			}
			aud, ok := mapperOf(c.ProtocolMappers, "oidc-audience-mapper")
			if !ok || aud.Config["included.custom.audience"] != "api-gateway" || aud.Config["access.token.claim"] != "true" {
				t.Errorf("audience mapper = %+v", aud)
			}
			u, ok := r.ServiceAccount(d.client)
			if !ok || u.Username != "service-account-"+d.client || u.ID != devidp.ServiceAccountID(d.client) || !u.Enabled {
				t.Errorf("service account = %+v", u)
			}
		})
	}
}

func TestLoadRefusesARealmDevidpCannotServe(t *testing.T) {
	good := string(devidp.DefaultRealmJSON())
	tests := []struct {
		name, old, new, wantErr string
	}{
		{"not JSON", good, "{", "decode realm"},
		{"a realm without a name", `"realm": "municipal"`, `"realm": ""`, "no name"},
		{"a disabled realm", `"enabled": true`, `"enabled": false`, "disabled"},
		{"a client naming an undefined scope", `"jobs:write"
      ],
      "optionalClientScopes"`, `"jobs:erase"
      ],
      "optionalClientScopes"`, `"jobs:erase" is not defined`},
		{"a mapper type devidp does not implement", `"protocolMapper": "oidc-audience-mapper"`, `"protocolMapper": "oidc-script-mapper"`, "not implemented"},
		{"a nested claim name", `"claim.name": "department"`, `"claim.name": "org.department"`, "plain"},
		{"an unknown JSON type", `"jsonType.label": "String",
            "access.token.claim": "true",
            "id.token.claim": "false",
            "userinfo`, `"jsonType.label": "Date",
            "access.token.claim": "true",
            "id.token.claim": "false",
            "userinfo`, "jsonType.label"},
		{"a confidential client without secret", `"secret": "reader-secret"`, `"secret": ""`, "needs a secret"},
		{"a service account of an unknown client", `"serviceAccountClientId": "reader"`, `"serviceAccountClientId": "writer"`, "unknown client"},
	}
	for _, tt := range tests {
		t.Run("rejects "+tt.name, func(t *testing.T) {
			changed := strings.Replace(good, tt.old, tt.new, 1)
			if changed == good {
				t.Fatalf("the test did not change the realm: %q not found", tt.old)
			}
			_, err := devidp.Load([]byte(changed))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Load() error = %v, want one mentioning %q", err, tt.wantErr)
			}
		})
	}
}
