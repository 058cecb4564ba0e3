package devidp

import (
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// maxFormBytes bounds the body of a token request.
const maxFormBytes = 16 << 10

// tokenResponse is the successful token response, shaped like Keycloak's.
type tokenResponse struct {
	AccessToken      string `json:"access_token"`
	ExpiresIn        int64  `json:"expires_in"`
	RefreshExpiresIn int64  `json:"refresh_expires_in"`
	TokenType        string `json:"token_type"`
	NotBeforePolicy  int64  `json:"not-before-policy"`
	Scope            string `json:"scope"`
}

// serveToken is the client-credentials token endpoint (RFC 6749 §4.4).
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		(&oauthError{Status: http.StatusMethodNotAllowed, Code: "invalid_request", Description: "use POST"}).write(w, s.realm)
		return
	}
	resp, err := s.token(w, r)
	if err != nil {
		var oe *oauthError
		if !errors.As(err, &oe) {
			oe = &oauthError{Status: http.StatusInternalServerError, Code: "server_error"}
			s.logger.ErrorContext(r.Context(), "issuing a token failed", "err", err)
		}
		s.logger.InfoContext(r.Context(), "token request refused", "error", oe.Code, "reason", oe.Description)
		oe.write(w, s.realm)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, resp)
}

// token handles one token request: form, grant type, client authentication,
// scope, then signing.
func (s *Server) token(w http.ResponseWriter, r *http.Request) (*tokenResponse, error) {
	form, oe := readForm(w, r)
	if oe != nil {
		return nil, oe
	}
	switch grant := form.Get("grant_type"); grant {
	case "client_credentials":
	case "":
		return nil, invalidRequest("grant_type is missing")
	default:
		return nil, &oauthError{Status: http.StatusBadRequest, Code: "unsupported_grant_type", Description: "only client_credentials is supported"}
	}
	c, oe := s.authenticate(r, form)
	if oe != nil {
		return nil, oe
	}
	claims, scope, err := s.claims(c, strings.Fields(form.Get("scope")), remoteIP(r))
	if err != nil {
		return nil, &oauthError{Status: http.StatusBadRequest, Code: "invalid_scope", Description: err.Error()}
	}
	tok, err := s.signing().sign(claims)
	if err != nil {
		return nil, err
	}
	s.logger.InfoContext(r.Context(), "token issued", "client_id", c.id, "scope", scope, "jti", claims["jti"])
	return &tokenResponse{
		AccessToken: tok,
		ExpiresIn:   int64(s.ttl.Seconds()),
		TokenType:   "Bearer",
		Scope:       scope,
	}, nil
}

// readForm reads the form-encoded body: the content type must say so, the
// body is bounded, and no parameter may repeat (RFC 6749 §3.2).
func readForm(w http.ResponseWriter, r *http.Request) (url.Values, *oauthError) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, invalidRequest("the body must be application/x-www-form-urlencoded")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxFormBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &oauthError{Status: http.StatusRequestEntityTooLarge, Code: "invalid_request", Description: "the body is too large"}
		}
		return nil, invalidRequest("the body could not be read")
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, invalidRequest("the body is not valid form encoding")
	}
	for k, v := range form {
		if len(v) > 1 {
			return nil, invalidRequest("parameter " + k + " is repeated")
		}
	}
	return form, nil
}

// remoteIP is the caller's address for the clientAddress and clientHost notes.
func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
