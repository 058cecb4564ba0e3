package proxy

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
	if name == "" {
		return false
	}
	if c := name[0] | 0x20; c != 'x' && c != 'r' { // every prefix starts with one of these
		return false
	}
	for _, p := range identityPrefixes {
		if hasFoldedPrefix(name, p) {
			return true
		}
	}
	return false
}

// hasFoldedPrefix reports whether name starts with prefix (lower-case ASCII)
// when read lower-case with "_" as "-", without building that reading: it
// ran on every header of every request.
func hasFoldedPrefix(name, prefix string) bool {
	if len(name) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c == '_':
			c = '-'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
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
