package auth

import (
	"context"
	"net/http"
	"strings"
)

// maxAuthorizationBytes bounds the Authorization header: the scheme, one
// space and a token of at most MaxTokenBytes.
const maxAuthorizationBytes = len("Bearer ") + MaxTokenBytes

// Authenticate verifies the bearer token of r's single Authorization header
// (RFC 6750 §2.1; the scheme is case-insensitive) and returns its claims.
func (v *Verifier) Authenticate(r *http.Request) (*Claims, error) {
	return v.AuthenticateHeader(r.Context(), r.Header.Values("Authorization"))
}

// AuthenticateHeader is Authenticate for a request whose Authorization
// header values are authorization, for a server that does not hold an
// *http.Request (the gateway's).
func (v *Verifier) AuthenticateHeader(ctx context.Context, authorization []string) (*Claims, error) {
	switch {
	case len(authorization) == 0:
		return nil, errNoToken("the request has no bearer token")
	case len(authorization) > 1:
		return nil, v.reject(ctx, "the request has more than one Authorization header", nil)
	case len(authorization[0]) > maxAuthorizationBytes:
		return nil, v.reject(ctx, "the Authorization header is too long", nil)
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(authorization[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return nil, errNoToken("the Authorization header must use the Bearer scheme")
	}
	token = strings.TrimLeft(token, " ")
	if !isB64Token(token) {
		return nil, v.reject(ctx, "the bearer token is empty or malformed", nil)
	}
	return v.Verify(ctx, token)
}

// isB64Token reports whether s matches RFC 6750's b64token:
// 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}
