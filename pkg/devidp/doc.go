// Package devidp is a development identity provider: just enough of Keycloak
// (the OAuth 2.0 client-credentials grant, the JWKS and OpenID discovery of
// one realm) for local runs and tests, driven by the same realm-export file
// that Keycloak imports in the compose stack. Everything a token says (clients,
// secrets, scopes, department, audience, subject) comes from that file.
//
// It is not for production: secrets are public and keys live in memory.
//
// Differences from Keycloak, on purpose: a scope request narrows the scope
// claim to the requested default scopes (Keycloak always grants every default
// scope), so tests can obtain tokens with fewer scopes; only client
// credentials are supported; only the protocol mappers the realm file uses are
// implemented (Load rejects others); user-session notes other than client_id,
// clientHost and clientAddress (such as AUTH_TIME) are unset, so their claims
// are omitted; aud is always a JSON array.
package devidp
