package proxy

import "strings"

// Headers the gateway sets on every forwarded request from the verified token.
const (
	HeaderClientID   = "X-Client-Id"
	HeaderDepartment = "X-Department"
)

// identityPrefixes start header names that claim an identity; a client never
// gets to send them upstream. Names are compared lower-case with "_" read as
// "-", the way some servers read them.
var identityPrefixes = []string{
	"x-auth", "x-user", "x-client-id", "x-department", "x-forwarded-user",
	"x-forwarded-email", "x-forwarded-groups", "x-forwarded-preferred-username",
	"x-forwarded-access-token", "x-remote-", "remote-user", "x-authenticated",
	"x-consumer-", "x-credential", "x-scope", "x-roles", "x-email", "x-jwt",
}

// isIdentityHeader reports whether name claims an identity.
func isIdentityHeader(name string) bool {
	n := strings.ReplaceAll(strings.ToLower(name), "_", "-")
	for _, p := range identityPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// gatewayOwned are response headers the gateway sets itself; an upstream's
// copies are dropped so that no response carries a header twice.
var gatewayOwned = [...]string{
	"X-Request-Id", "X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset",
	"Ratelimit", "Ratelimit-Policy",
}

// isGatewayOwned reports whether name (canonical) is one of gatewayOwned.
func isGatewayOwned(name string) bool {
	for _, n := range gatewayOwned {
		if n == name {
			return true
		}
	}
	return false
}
