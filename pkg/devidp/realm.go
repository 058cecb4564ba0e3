package devidp

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

//go:embed realm-municipal.json
var defaultRealmJSON []byte

// Realm is the part of a Keycloak realm export that devidp reads.
type Realm struct {
	Name                string        `json:"realm"`
	Enabled             bool          `json:"enabled"`
	AccessTokenLifespan int           `json:"accessTokenLifespan"` // seconds
	ClientScopes        []ClientScope `json:"clientScopes"`
	Clients             []Client      `json:"clients"`
	Users               []User        `json:"users"`
}

// ClientScope is a named bundle of protocol mappers a client can be given.
type ClientScope struct {
	Name            string            `json:"name"`
	Protocol        string            `json:"protocol"`
	Attributes      map[string]string `json:"attributes"`
	ProtocolMappers []ProtocolMapper  `json:"protocolMappers"`
}

// ProtocolMapper adds a claim to tokens; ProtocolMapper names its Keycloak type.
type ProtocolMapper struct {
	Name           string            `json:"name"`
	Protocol       string            `json:"protocol"`
	ProtocolMapper string            `json:"protocolMapper"`
	Config         map[string]string `json:"config"`
}

// Client is an OAuth client of the realm.
type Client struct {
	ClientID                string           `json:"clientId"`
	Enabled                 *bool            `json:"enabled"` // Keycloak treats a missing value as true
	ClientAuthenticatorType string           `json:"clientAuthenticatorType"`
	Secret                  string           `json:"secret"`
	PublicClient            bool             `json:"publicClient"`
	ServiceAccountsEnabled  bool             `json:"serviceAccountsEnabled"`
	StandardFlowEnabled     bool             `json:"standardFlowEnabled"`
	ProtocolMappers         []ProtocolMapper `json:"protocolMappers"`
	DefaultClientScopes     []string         `json:"defaultClientScopes"`
	OptionalClientScopes    []string         `json:"optionalClientScopes"`
}

// User is a realm user; devidp reads only service-account users.
type User struct {
	ID                     string `json:"id"`
	Username               string `json:"username"`
	Enabled                bool   `json:"enabled"`
	ServiceAccountClientID string `json:"serviceAccountClientId"`
}

// Load parses a Keycloak realm export and checks that devidp can serve it.
func Load(realmJSON []byte) (*Realm, error) {
	var r Realm
	if err := json.Unmarshal(realmJSON, &r); err != nil {
		return nil, fmt.Errorf("decode realm: %w", err)
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("realm %q: %w", r.Name, err)
	}
	return &r, nil
}

// DefaultRealm returns the embedded development realm "municipal", the file
// Keycloak imports too.
func DefaultRealm() (*Realm, error) {
	return Load(defaultRealmJSON)
}

// DefaultRealmJSON returns a copy of the embedded realm file.
func DefaultRealmJSON() []byte {
	return slices.Clone(defaultRealmJSON)
}

// Scope returns the client scope called name.
func (r *Realm) Scope(name string) (*ClientScope, bool) {
	i := slices.IndexFunc(r.ClientScopes, func(s ClientScope) bool { return s.Name == name })
	if i < 0 {
		return nil, false
	}
	return &r.ClientScopes[i], true
}

// Client returns the client whose client id is id.
func (r *Realm) Client(id string) (*Client, bool) {
	i := slices.IndexFunc(r.Clients, func(c Client) bool { return c.ClientID == id })
	if i < 0 {
		return nil, false
	}
	return &r.Clients[i], true
}

// ServiceAccount returns the service-account user of the client id, if listed.
func (r *Realm) ServiceAccount(clientID string) (*User, bool) {
	i := slices.IndexFunc(r.Users, func(u User) bool { return u.ServiceAccountClientID == clientID })
	if i < 0 {
		return nil, false
	}
	return &r.Users[i], true
}

// IsEnabled reports whether the client may obtain tokens.
func (c *Client) IsEnabled() bool { return c.Enabled == nil || *c.Enabled }

// InTokenScope reports whether the scope's name is listed in the scope claim
// of tokens (Keycloak's include.in.token.scope, true when unset).
func (s *ClientScope) InTokenScope() bool {
	return s.Attributes["include.in.token.scope"] != "false"
}

func (r *Realm) validate() error {
	if r.Name == "" {
		return errors.New("the realm has no name")
	}
	if !r.Enabled {
		return errors.New("the realm is disabled")
	}
	if r.AccessTokenLifespan < 0 {
		return errors.New("accessTokenLifespan is negative")
	}
	for _, s := range r.ClientScopes {
		if err := checkMappers(s.ProtocolMappers); err != nil {
			return fmt.Errorf("client scope %q: %w", s.Name, err)
		}
	}
	seen := map[string]bool{}
	for _, c := range r.Clients {
		if c.ClientID == "" || seen[c.ClientID] {
			return fmt.Errorf("client id %q is empty or repeated", c.ClientID)
		}
		seen[c.ClientID] = true
		if err := r.checkClient(c); err != nil {
			return fmt.Errorf("client %q: %w", c.ClientID, err)
		}
	}
	for _, u := range r.Users {
		if u.ServiceAccountClientID != "" && !seen[u.ServiceAccountClientID] {
			return fmt.Errorf("user %q is the service account of unknown client %q", u.Username, u.ServiceAccountClientID)
		}
	}
	return nil
}

func (r *Realm) checkClient(c Client) error {
	for _, name := range slices.Concat(c.DefaultClientScopes, c.OptionalClientScopes) {
		if _, ok := r.Scope(name); !ok {
			return fmt.Errorf("client scope %q is not defined in clientScopes", name)
		}
	}
	if c.ServiceAccountsEnabled && !c.PublicClient && c.Secret == "" {
		return errors.New("a confidential client needs a secret")
	}
	return checkMappers(c.ProtocolMappers)
}
