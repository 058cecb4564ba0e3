package devidp

import (
	"net/http"
	"net/url"
)

// authenticate identifies and authenticates the client of a token request,
// by HTTP Basic or by client_id and client_secret in the body (RFC 6749
// §2.3.1), and checks that it may use the client-credentials grant.
func (s *Server) authenticate(r *http.Request, form url.Values) (*client, *oauthError) {
	id, secret, basic, oe := credentials(r, form)
	if oe != nil {
		return nil, oe
	}
	c := s.clients[id]
	if !secretMatches(c, secret) || !c.enabled || c.authenticator != "client-secret" {
		s.logger.InfoContext(r.Context(), "client authentication failed", "client_id", id, "basic", basic)
		return nil, invalidClient(basic)
	}
	if !c.canGrant {
		return nil, &oauthError{Status: http.StatusBadRequest, Code: "unauthorized_client", Description: "the client may not use the client_credentials grant"}
	}
	return c, nil
}

// credentials extracts the client id and secret. Basic credentials are
// form-urlencoded before base64 (RFC 6749 §2.3.1); a client must use one
// method only.
func credentials(r *http.Request, form url.Values) (id, secret string, basic bool, oe *oauthError) {
	if _, present := r.Header["Authorization"]; !present {
		id, secret = form.Get("client_id"), form.Get("client_secret")
		if id == "" || secret == "" {
			return "", "", false, invalidClient(false)
		}
		return id, secret, false, nil
	}
	user, pass, ok := r.BasicAuth()
	if !ok {
		return "", "", true, invalidClient(true)
	}
	if form.Has("client_secret") {
		return "", "", true, invalidRequest("use one client authentication method, not Basic and client_secret")
	}
	id, err1 := url.QueryUnescape(user)
	secret, err2 := url.QueryUnescape(pass)
	if err1 != nil || err2 != nil || id == "" {
		return "", "", true, invalidClient(true)
	}
	if form.Has("client_id") && form.Get("client_id") != id {
		return "", "", true, invalidRequest("client_id differs from the Basic credentials")
	}
	return id, secret, true, nil
}
