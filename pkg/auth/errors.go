package auth

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Realm is the realm named in every WWW-Authenticate challenge.
const Realm = "municipal"

const challengeHeader = "WWW-Authenticate"

// errNoToken is the 401 for a request without bearer credentials: the
// challenge carries no error code (RFC 6750 §3.1).
func errNoToken(detail string) *problem.Error {
	return problem.Errorf(problem.EUNAUTHORIZED, "%s", detail).
		WithHeader(challengeHeader, `Bearer realm="`+Realm+`"`)
}

// errInvalidToken is the 401 for a token that is present but not acceptable.
// desc must be one of this package's constant, quote-free descriptions; cause
// stays internal.
func errInvalidToken(desc string, cause error) *problem.Error {
	e := problem.Errorf(problem.EUNAUTHORIZED, "%s", desc).
		WithHeader(challengeHeader, fmt.Sprintf(`Bearer realm=%q, error="invalid_token", error_description=%q`, Realm, desc))
	e.Err = cause
	return e
}

// errInsufficientScope is the 403 for a valid token that lacks scope.
func errInsufficientScope(scope string) *problem.Error {
	return problem.Errorf(problem.EFORBIDDEN, "this request needs the %q scope, which the token does not grant", scope).
		WithHeader(challengeHeader, fmt.Sprintf(`Bearer realm=%q, error="insufficient_scope", scope=%q`, Realm, scope))
}

// errKeysUnavailable is the 503 for a token that cannot be checked because
// the identity provider's keys cannot be fetched;
// retry is when the next fetch may happen (the refetch cooldown).
func errKeysUnavailable(cause error, retry time.Duration) *problem.Error {
	secs := int(math.Ceil(retry.Seconds()))
	return problem.Wrap(problem.EUNAVAILABLE, cause, "the identity provider's signing keys are unavailable; retry shortly").
		WithHeader("Retry-After", strconv.Itoa(max(secs, 1)))
}
