package devidp

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"slices"

	"github.com/google/uuid"
)

// client is a realm client compiled for issuing tokens.
type client struct {
	id            string
	secret        [sha256.Size]byte
	authenticator string
	enabled       bool
	canGrant      bool // confidential with a service account
	defaults      []scope
	optionals     []scope
	mappers       []claimFunc // the client's own mappers
	subject       string
	username      string
}

// scope is a client scope compiled for issuing tokens.
type scope struct {
	name    string
	inToken bool
	mappers []claimFunc
}

// compileClients compiles every client of r.
func compileClients(r *Realm) (map[string]*client, error) {
	scopes := make(map[string]scope, len(r.ClientScopes))
	for _, cs := range r.ClientScopes {
		fns, err := compileMappers(cs.ProtocolMappers)
		if err != nil {
			return nil, fmt.Errorf("client scope %q: %w", cs.Name, err)
		}
		scopes[cs.Name] = scope{name: cs.Name, inToken: cs.InTokenScope(), mappers: fns}
	}
	pick := func(names []string) []scope {
		out := make([]scope, 0, len(names))
		for _, n := range names {
			out = append(out, scopes[n]) // Load checked that every name is defined
		}
		return out
	}
	clients := make(map[string]*client, len(r.Clients))
	for _, rc := range r.Clients {
		fns, err := compileMappers(rc.ProtocolMappers)
		if err != nil {
			return nil, fmt.Errorf("client %q: %w", rc.ClientID, err)
		}
		c := &client{
			id:            rc.ClientID,
			secret:        sha256.Sum256([]byte(rc.Secret)),
			authenticator: rc.ClientAuthenticatorType,
			enabled:       rc.IsEnabled(),
			canGrant:      rc.ServiceAccountsEnabled && !rc.PublicClient,
			defaults:      pick(rc.DefaultClientScopes),
			optionals:     pick(rc.OptionalClientScopes),
			mappers:       fns,
			subject:       ServiceAccountID(rc.ClientID),
			username:      "service-account-" + rc.ClientID,
		}
		if u, ok := r.ServiceAccount(rc.ClientID); ok {
			c.subject, c.username = u.ID, u.Username
		}
		clients[c.id] = c
	}
	return clients, nil
}

func compileMappers(ms []ProtocolMapper) ([]claimFunc, error) {
	fns := make([]claimFunc, 0, len(ms))
	for _, m := range ms {
		fn, err := compileMapper(m)
		if err != nil {
			return nil, err
		}
		fns = append(fns, fn)
	}
	return fns, nil
}

// ServiceAccountID is the stable user id devidp gives the service account of
// a client the realm file lists no user for; the embedded realm file uses the
// same ids, so sub is identical under Keycloak and devidp.
func ServiceAccountID(clientID string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://municipal.example/service-account/"+clientID)).String()
}

// secretMatches compares secret with c's in constant time; c may be nil (an
// unknown client), which costs the same and never matches.
func secretMatches(c *client, secret string) bool {
	var want [sha256.Size]byte
	if c != nil {
		want = c.secret
	}
	got := sha256.Sum256([]byte(secret))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1 && c != nil
}

// grant resolves a scope request (nil: none) into the scope claim and the
// client scopes whose mappers apply. Default scopes always apply; requesting
// scopes narrows the claim to them (see the package doc); "openid" is
// accepted and listed, as Keycloak does.
func (c *client) grant(requested []string) (claim []string, applied []scope, err error) {
	applied = slices.Clone(c.defaults)
	if len(requested) == 0 {
		for _, s := range c.defaults {
			if s.inToken {
				claim = append(claim, s.name)
			}
		}
		return claim, applied, nil
	}
	for _, name := range requested {
		if name != "openid" && !slices.ContainsFunc(c.defaults, byName(name)) && !slices.ContainsFunc(c.optionals, byName(name)) {
			return nil, nil, fmt.Errorf("the client may not request scope %q", name)
		}
	}
	if slices.Contains(requested, "openid") {
		claim = append(claim, "openid")
	}
	for _, s := range slices.Concat(c.defaults, c.optionals) {
		if !slices.Contains(requested, s.name) {
			continue
		}
		if slices.ContainsFunc(c.optionals, byName(s.name)) {
			applied = append(applied, s)
		}
		if s.inToken {
			claim = append(claim, s.name)
		}
	}
	return claim, applied, nil
}

func byName(name string) func(scope) bool {
	return func(s scope) bool { return s.name == name }
}
