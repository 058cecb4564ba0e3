package client

import (
	"net/http"
	"net/url"
)

// IdempotencyKeyHeader is the header that makes a POST or PATCH safe to
// repeat: the service answers a replay with the original status and body.
const IdempotencyKeyHeader = "Idempotency-Key"

// ReplayedHeader marks an answer that a service replayed for a repeated
// Idempotency-Key instead of applying the request again.
const ReplayedHeader = "Idempotent-Replayed"

// Option adjusts one request.
type Option func(*request)

// WithIdempotencyKey sends key as the request's Idempotency-Key, instead of
// the random one the client picks for a POST; it also makes a PATCH retryable.
func WithIdempotencyKey(key string) Option {
	return func(r *request) { r.header.Set(IdempotencyKeyHeader, key) }
}

// WithHeader sets a request header, such as X-Request-ID.
func WithHeader(key, value string) Option {
	return func(r *request) { r.header.Set(key, value) }
}

// WithQuery adds query parameters to the request URL.
func WithQuery(q url.Values) Option {
	return func(r *request) {
		for k, vs := range q {
			r.query[k] = append(r.query[k], vs...)
		}
	}
}

// idempotentMethods are the methods whose repetition has the effect of one
// request (RFC 9110 §9.2.2).
var idempotentMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodOptions: true,
	http.MethodPut: true, http.MethodDelete: true,
}
