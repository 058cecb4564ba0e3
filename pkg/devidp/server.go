package devidp

import (
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
)

// RealmsPath prefixes the realm paths, as in Keycloak with KC_HTTP_RELATIVE_PATH=/auth.
const RealmsPath = "/auth/realms/"

// Options configures a Server. Only Issuer is required.
type Options struct {
	// Realm is served; default the embedded realm (DefaultRealm).
	Realm *Realm
	// Issuer is the public base URL clients reach devidp at, such as
	// http://127.0.0.1:8090; tokens carry Issuer + "/auth/realms/<realm>".
	Issuer string
	// Key signs tokens: *rsa.PrivateKey (RS256) or *ecdsa.PrivateKey P-256
	// (ES256); default a fresh RSA 2048 key.
	Key crypto.Signer
	// TokenTTL is the access-token lifetime; default the realm's accessTokenLifespan.
	TokenTTL time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logger records issued and refused token requests (never secrets or tokens); default slog.Default().
	Logger *slog.Logger
}

// Server is the development identity provider, an http.Handler.
type Server struct {
	realm   string
	issuer  string // full issuer URL
	ttl     time.Duration
	now     func() time.Time
	logger  *slog.Logger
	clients map[string]*client
	scopes  []string // every client scope name, for discovery
	mux     *http.ServeMux

	keysMu    sync.RWMutex
	key       *signingKey   // signs new tokens
	published []*signingKey // the JWKS: the signing key and the older keys still announced
}

// New builds a Server for o.
func New(o Options) (*Server, error) {
	if o.Realm == nil {
		r, err := DefaultRealm()
		if err != nil {
			return nil, err
		}
		o.Realm = r
	}
	if err := CheckIssuerBase(o.Issuer); err != nil {
		return nil, fmt.Errorf("devidp: Options.Issuer %w", err)
	}
	base := strings.TrimSuffix(o.Issuer, "/")
	key, err := newSigningKey(o.Key)
	if err != nil {
		return nil, fmt.Errorf("devidp signing key: %w", err)
	}
	clients, err := compileClients(o.Realm)
	if err != nil {
		return nil, fmt.Errorf("realm %q: %w", o.Realm.Name, err)
	}
	s := &Server{
		realm:   o.Realm.Name,
		issuer:  base + RealmsPath + url.PathEscape(o.Realm.Name),
		ttl:     o.TokenTTL,
		now:     o.Now,
		logger:  o.Logger,
		clients: clients,
	}
	s.key, s.published = key, []*signingKey{key}
	if s.ttl <= 0 {
		s.ttl = time.Duration(o.Realm.AccessTokenLifespan) * time.Second
	}
	if s.ttl <= 0 {
		return nil, errors.New("devidp: TokenTTL and the realm's accessTokenLifespan are both unset")
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	for _, cs := range o.Realm.ClientScopes {
		s.scopes = append(s.scopes, cs.Name)
	}
	s.routes()
	return s, nil
}

// CheckIssuerBase reports whether raw can be the public base URL of
// devidp: an absolute http(s) URL without query or fragment. Its error
// reads after the name of the setting that holds raw.
func CheckIssuerBase(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q is not an absolute http(s) base URL without query or fragment", raw)
	}
	return nil
}

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	p := s.Paths()
	s.mux.Handle(p[0], onlyGET(http.HandlerFunc(s.serveDiscovery)))
	s.mux.Handle(p[1], onlyGET(http.HandlerFunc(s.serveJWKS)))
	s.mux.HandleFunc(p[2], s.serveToken)
}

// Paths returns the request paths the Server answers: discovery, JWKS and
// token endpoint, in that order.
func (s *Server) Paths() []string {
	realm := RealmsPath + url.PathEscape(s.realm)
	return []string{
		realm + "/.well-known/openid-configuration",
		realm + "/protocol/openid-connect/certs",
		realm + "/protocol/openid-connect/token",
	}
}

// ServeHTTP serves discovery, the JWKS and the token endpoint of the realm.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Issuer returns the full issuer URL, the iss of every token.
func (s *Server) Issuer() string { return s.issuer }

// TokenURL returns the public URL of the token endpoint.
func (s *Server) TokenURL() string { return s.issuer + "/protocol/openid-connect/token" }

// JWKSURL returns the public URL of the JWKS.
func (s *Server) JWKSURL() string { return s.issuer + "/protocol/openid-connect/certs" }

// KeyID returns the kid of the signing key.
func (s *Server) KeyID() string { return s.signing().public.KeyID }

// Algorithm returns the JWS algorithm of the signing key, RS256 or ES256.
func (s *Server) Algorithm() string { return string(s.signing().alg) }

// signing returns the key that signs new tokens.
func (s *Server) signing() *signingKey {
	s.keysMu.RLock()
	defer s.keysMu.RUnlock()
	return s.key
}

// RotateKey makes k (nil: a fresh RSA 2048 key) the signing key and returns
// its kid. The previous keys stay in the JWKS until RemoveKey drops them, as
// a provider keeps announcing a retired key while its tokens live.
func (s *Server) RotateKey(k crypto.Signer) (string, error) {
	key, err := newSigningKey(k)
	if err != nil {
		return "", fmt.Errorf("devidp signing key: %w", err)
	}
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	if slices.ContainsFunc(s.published, func(p *signingKey) bool { return p.public.KeyID == key.public.KeyID }) {
		return "", fmt.Errorf("devidp: key %s is already published", key.public.KeyID)
	}
	s.key, s.published = key, append([]*signingKey{key}, s.published...)
	return key.public.KeyID, nil
}

// RemoveKey stops announcing the key kid in the JWKS, so verifiers drop it
// and every token it signed. The signing key cannot be removed: rotate first.
func (s *Server) RemoveKey(kid string) error {
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	if s.key.public.KeyID == kid {
		return fmt.Errorf("devidp: key %s signs new tokens; rotate before removing it", kid)
	}
	i := slices.IndexFunc(s.published, func(p *signingKey) bool { return p.public.KeyID == kid })
	if i < 0 {
		return fmt.Errorf("devidp: no published key %s", kid)
	}
	s.published = slices.Delete(slices.Clone(s.published), i, i+1)
	return nil
}

// jwks returns the public keys the JWKS announces, the signing key first.
func (s *Server) jwks() jose.JSONWebKeySet {
	s.keysMu.RLock()
	defer s.keysMu.RUnlock()
	set := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, len(s.published))}
	for i, k := range s.published {
		set.Keys[i] = k.public
	}
	return set
}

// Claims returns the claims the token endpoint would sign for clientID with
// the given scope request (none: the default scopes); tests start from them
// to forge tokens.
func (s *Server) Claims(clientID string, scopes ...string) (map[string]any, error) {
	c, ok := s.clients[clientID]
	if !ok {
		return nil, fmt.Errorf("devidp: unknown client %q", clientID)
	}
	claims, _, err := s.claims(c, scopes, "")
	if err != nil {
		return nil, fmt.Errorf("devidp: %w", err)
	}
	return claims, nil
}

// claims builds an access token's claims the way Keycloak does for a
// client-credentials grant: fixed claims, then every applicable mapper. It
// also returns the granted scope string.
func (s *Server) claims(c *client, requested []string, remoteAddr string) (map[string]any, string, error) {
	names, applied, err := c.grant(requested)
	if err != nil {
		return nil, "", err
	}
	scope := strings.Join(names, " ")
	now := s.now()
	claims := map[string]any{
		"exp":   now.Add(s.ttl).Unix(),
		"iat":   now.Unix(),
		"jti":   uuid.NewString(),
		"iss":   s.issuer,
		"typ":   "Bearer",
		"azp":   c.id,
		"scope": scope,
	}
	sess := &session{clientID: c.id, subject: c.subject, username: c.username, remoteAddr: remoteAddr}
	for _, sc := range applied {
		for _, fn := range sc.mappers {
			fn(claims, sess)
		}
	}
	for _, fn := range c.mappers {
		fn(claims, sess)
	}
	return claims, scope, nil
}

func (s *Server) serveDiscovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                s.issuer,
		"token_endpoint":                        s.TokenURL(),
		"jwks_uri":                              s.JWKSURL(),
		"grant_types_supported":                 []string{"client_credentials"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"id_token_signing_alg_values_supported": []string{s.Algorithm()},
		"response_types_supported":              []string{"token"},
		"subject_types_supported":               []string{"public"},
		"scopes_supported":                      append([]string{"openid"}, s.scopes...),
	})
}

func (s *Server) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-cache")
	writeJSON(w, http.StatusOK, s.jwks())
}

// onlyGET answers 405 to anything but GET and HEAD.
func onlyGET(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeJSON(w, http.StatusMethodNotAllowed, oauthError{Code: "invalid_request", Description: "use GET"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// writeJSON writes v as the JSON response body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encode response", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
