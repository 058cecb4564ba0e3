package devidp

import "net/http"

// oauthError is an RFC 6749 §5.2 error response of the token endpoint.
type oauthError struct {
	Status      int    `json:"-"`
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
	basic       bool   // the client tried HTTP Basic authentication
}

func (e *oauthError) Error() string { return e.Code + ": " + e.Description }

func invalidRequest(desc string) *oauthError {
	return &oauthError{Status: http.StatusBadRequest, Code: "invalid_request", Description: desc}
}

func invalidClient(basic bool) *oauthError {
	return &oauthError{Status: http.StatusUnauthorized, Code: "invalid_client", Description: "invalid client or invalid client credentials", basic: basic}
}

// write sends e; a 401 after Basic authentication carries the matching
// challenge (RFC 6749 §5.2).
func (e *oauthError) write(w http.ResponseWriter, realm string) {
	if e.Status == http.StatusUnauthorized && e.basic {
		w.Header().Set("WWW-Authenticate", `Basic realm="`+realm+`"`)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, e.Status, e)
}
