package auth

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/problem"
)

// GinKey is the gin context key under which Middleware also stores the *Claims.
const GinKey = "auth.claims"

// Authenticator returns the claims of a request's bearer token; *Verifier
// and *TokenCache are ones.
type Authenticator interface {
	Authenticate(r *http.Request) (*Claims, error)
}

// Middleware authenticates every request of a gin engine: a request without
// an acceptable bearer token ends with 401 (or 503, see Verify); otherwise its
// claims are stored in the request context (ClaimsFrom) and under GinKey.
func Middleware(v Authenticator) gin.HandlerFunc {
	return func(c *gin.Context) {
		claims, err := v.Authenticate(c.Request)
		if err != nil {
			problem.Abort(c, err)
			return
		}
		c.Request = c.Request.WithContext(WithClaims(c.Request.Context(), claims))
		c.Set(GinKey, claims)
		c.Next()
	}
}

// HTTPMiddleware is Middleware for net/http handlers such as the gateway's.
func HTTPMiddleware(v Authenticator, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		claims, err := v.Authenticate(r)
		if err != nil {
			problem.Write(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(WithClaims(r.Context(), claims)))
	})
}

// RequireScope lets a request through only when the claims stored by
// Middleware grant scope, and answers 403 naming scope otherwise. It panics
// when scope is not a valid RFC 6749 scope token, a programming error.
func RequireScope(scope string) gin.HandlerFunc {
	mustScopeToken(scope)
	return func(c *gin.Context) {
		if err := CheckScope(c.Request.Context(), scope); err != nil {
			problem.Abort(c, err)
			return
		}
		c.Next()
	}
}

// RequireScopeHTTP is RequireScope for net/http handlers behind HTTPMiddleware.
func RequireScopeHTTP(scope string, next http.Handler) http.Handler {
	mustScopeToken(scope)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := CheckScope(r.Context(), scope); err != nil {
			problem.Write(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// CheckScope returns nil when the claims in ctx grant scope, a 403
// *problem.Error naming scope when they do not, and a 401 when ctx carries
// no claims at all; handlers that pick the scope at run time call it directly.
func CheckScope(ctx context.Context, scope string) error {
	claims, ok := ClaimsFrom(ctx)
	if !ok {
		return errNoToken("the request has no bearer token")
	}
	if !claims.HasScope(scope) {
		return errInsufficientScope(scope)
	}
	return nil
}

// mustScopeToken panics unless scope is 1*( %x21 / %x23-5B / %x5D-7E )
// (RFC 6749 §3.3), which also keeps it safe inside a quoted header value.
func mustScopeToken(scope string) {
	ok := scope != ""
	for i := 0; i < len(scope) && ok; i++ {
		c := scope[i]
		ok = c == 0x21 || (c >= 0x23 && c <= 0x5B) || (c >= 0x5D && c <= 0x7E)
	}
	if !ok {
		panic(fmt.Sprintf("auth: %q is not a valid scope token", scope))
	}
}
