// Package auth verifies the OAuth 2.0 bearer access tokens of the platform
// (Keycloak-shaped JWTs, see docs/decisions.md#realm-clients-and-scopes) and
// turns them into Claims.
//
// A Verifier checks the signature (RS256 or ES256 only) against the identity
// provider's JWKS, the exact issuer, the audience, the time claims (exp, nbf
// and iat as numbers, one clock skew, a maximum lifetime) and that the token
// is an access token (payload claim typ "Bearer"). No network is touched
// before first use, so a program can start before its identity provider.
// Run refetches the JWKS on a schedule, dropping keys the provider no longer
// announces and keeping the last good set when a fetch fails; a token naming
// an unknown key id also triggers a refetch, at most once per cooldown, so a
// flood of forged tokens cannot turn into a flood of requests to the provider.
//
// A TokenCache in front of a Verifier remembers the claims of the
// Authorization headers it verified (OIDC_TOKEN_CACHE_SIZE of them, least
// recently used out first), each until its token expires or its signing key
// leaves the JWKS, so a client reusing its token costs one signature check
// per token; the gateway and every service authenticate through one.
//
// Failures are *problem.Error values: 401 EUNAUTHORIZED with an RFC 6750
// WWW-Authenticate challenge, 403 EFORBIDDEN for a missing scope, and 503
// EUNAVAILABLE when the signing keys cannot be fetched at all. Tokens are
// never logged or echoed.
package auth
