// Package problem is the one error type of the platform: every error carries a
// code, and this package is the only place that maps codes to HTTP statuses and
// renders them as RFC 9457 application/problem+json.
package problem

import (
	"errors"
	"fmt"
	"net/http"
)

// Code classifies an error independently of transport.
type Code string

// The error codes of the platform. Status maps each to exactly one HTTP status.
const (
	EMALFORMED    Code = "malformed"              // 400: the body is not parseable JSON
	EUNAUTHORIZED Code = "unauthorized"           // 401: no valid bearer token
	EFORBIDDEN    Code = "forbidden"              // 403: valid token, missing scope
	ENOTFOUND     Code = "not_found"              // 404: unknown resource or route
	EMETHOD       Code = "method_not_allowed"     // 405: route exists, method does not
	ECLIENTSLOW   Code = "request_timeout"        // 408: the request's body did not arrive in time
	ECONFLICT     Code = "conflict"               // 409: duplicate or forbidden state change
	EPRECONDITION Code = "precondition_failed"    // 412: a condition of the request (If-Match) is false
	ETOOLARGE     Code = "too_large"              // 413: body over the limit
	EMEDIATYPE    Code = "unsupported_media_type" // 415: not JSON
	ERANGE        Code = "range_not_satisfiable"  // 416: no range of a Range header is within the file
	EINVALID      Code = "invalid"                // 422: a field rule is violated
	ERATELIMIT    Code = "rate_limited"           // 429: a rate limit was reached
	EHEADTOOLARGE Code = "header_too_large"       // 431: the request's head is over the server's limit
	ECLIENTGONE   Code = "client_closed_request"  // 499: the client went away before the answer
	EINTERNAL     Code = "internal"               // 500: a bug or unexpected failure
	EBADGATEWAY   Code = "bad_gateway"            // 502: an upstream failed
	EUNAVAILABLE  Code = "unavailable"            // 503: a dependency is down
	ETIMEOUT      Code = "gateway_timeout"        // 504: an upstream timed out
)

// StatusClientClosedRequest is the status logged and counted for a request
// whose client went away before it was answered (nginx's 499); the client
// never sees it.
const StatusClientClosedRequest = 499

var statuses = map[Code]int{
	EMALFORMED:    http.StatusBadRequest,
	EUNAUTHORIZED: http.StatusUnauthorized,
	EFORBIDDEN:    http.StatusForbidden,
	ENOTFOUND:     http.StatusNotFound,
	EMETHOD:       http.StatusMethodNotAllowed,
	ECLIENTSLOW:   http.StatusRequestTimeout,
	ECONFLICT:     http.StatusConflict,
	EPRECONDITION: http.StatusPreconditionFailed,
	ETOOLARGE:     http.StatusRequestEntityTooLarge,
	EMEDIATYPE:    http.StatusUnsupportedMediaType,
	ERANGE:        http.StatusRequestedRangeNotSatisfiable,
	EINVALID:      http.StatusUnprocessableEntity,
	ERATELIMIT:    http.StatusTooManyRequests,
	EHEADTOOLARGE: http.StatusRequestHeaderFieldsTooLarge,
	ECLIENTGONE:   StatusClientClosedRequest,
	EINTERNAL:     http.StatusInternalServerError,
	EBADGATEWAY:   http.StatusBadGateway,
	EUNAVAILABLE:  http.StatusServiceUnavailable,
	ETIMEOUT:      http.StatusGatewayTimeout,
}

// Status returns the HTTP status of code; unknown codes are 500.
func Status(code Code) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// FieldError is one violated rule of one request member.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	Code    string `json:"code"`
}

// Error is the platform's error: a code, a message safe to show to the
// client, the violated field rules of a 422, extra response headers, and the
// underlying cause (logged, never shown).
type Error struct {
	Code   Code
	Detail string
	Fields []FieldError
	Header http.Header
	Err    error
}

// Errorf builds an Error whose detail is shown to the client.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Wrap builds an Error with a client-safe detail around an internal cause.
func Wrap(code Code, err error, detail string) *Error {
	return &Error{Code: code, Detail: detail, Err: err}
}

// Field builds a 422 Error for a single violated rule.
func Field(field, code, message string) *Error {
	return &Error{Code: EINVALID, Detail: "the request has invalid fields", Fields: []FieldError{{Field: field, Code: code, Message: message}}}
}

// BodyTooLarge is the 413 for a request body over limit bytes.
func BodyTooLarge(limit int64) *Error {
	return Errorf(ETOOLARGE, "the request body exceeds %d bytes", limit)
}

// WithHeader sets a response header that goes out with the error, such as
// WWW-Authenticate or Retry-After, and returns e.
func (e *Error) WithHeader(key, value string) *Error {
	if e.Header == nil {
		e.Header = http.Header{}
	}
	e.Header.Set(key, value)
	return e
}

// Error implements error.
func (e *Error) Error() string {
	msg := string(e.Code)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns the code of the first *Error in err's chain, or EINTERNAL.
func CodeOf(err error) Code {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return EINTERNAL
}

// Is reports whether err carries code.
func Is(err error, code Code) bool {
	return err != nil && CodeOf(err) == code
}
