// Package client is the Go client of the municipal services API: the search
// administration area and the jobs and courses area, reached through their
// base URLs (usually the gateway's /search and /go/v1 prefixes).
//
// It obtains access tokens with the OAuth 2 client-credentials flow and
// caches them until shortly before they expire. It retries 429 and 503
// answers with exponential backoff and full jitter, honouring Retry-After and
// X-RateLimit-Reset, but only for requests that are safe to repeat: GET, HEAD,
// PUT, DELETE and OPTIONS, and POST or PATCH requests that carry an
// Idempotency-Key. Every POST gets a fresh Idempotency-Key, reused across its
// retries, unless Config.DisableIdempotencyKeys is set. Error answers become
// *Error values decoded from the RFC 9457 problem body.
//
// Table numbers in comments (table 2.1 to 2.7) are those of the municipal
// services API document; docs/decisions.md#the-api-document says what each
// one holds.
package client
