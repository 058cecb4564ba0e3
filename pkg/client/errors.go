package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode"
)

// maxDetailRunes bounds the detail taken from a body that is not a problem
// document, such as an HTML error page of a proxy.
const maxDetailRunes = 200

// Error messages quote what a server said, within bounds: at most
// maxMessageRunes of a detail or a field's message, and maxFieldErrors
// field errors, so that a hostile or broken server cannot flood a log or a
// terminal through them. The Error's fields keep everything.
const (
	maxMessageRunes = 1000
	maxFieldErrors  = 20
)

// FieldError is one violated rule of one request member, from a 422.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	Code    string `json:"code"`
}

// Error is an answer with status 400 or above, decoded from its RFC 9457
// problem body when it has one.
type Error struct {
	Status    int    `json:"status"`
	Type      string `json:"type"`
	Title     string `json:"title"`
	Detail    string `json:"detail"`
	Instance  string `json:"instance"`
	RequestID string `json:"request_id"`
	// TraceID is the request's trace when the platform traces it.
	TraceID string       `json:"trace_id,omitempty"`
	Errors  []FieldError `json:"errors"`
	// Method and Path name the request that failed.
	Method, Path string `json:"-"`
	// RateLimit is what the answer said about the caller's rate limit.
	RateLimit RateLimit `json:"-"`
	// Attempts is how many times the request was sent.
	Attempts int `json:"-"`
}

// Error implements error: method, path, status, detail and field errors.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Detail != "" {
		b.WriteString(": " + clip(e.Detail, maxMessageRunes))
	}
	for i, f := range e.Errors[:min(len(e.Errors), maxFieldErrors)] {
		sep := "; "
		if i == 0 {
			sep = " ("
		}
		fmt.Fprintf(&b, "%s%s: %s", sep, clip(f.Field, maxMessageRunes), clip(f.Message, maxMessageRunes))
	}
	if more := len(e.Errors) - maxFieldErrors; more > 0 {
		fmt.Fprintf(&b, "; and %d more", more)
	}
	if len(e.Errors) > 0 {
		b.WriteString(")")
	}
	if e.RequestID != "" {
		b.WriteString(" [request_id " + e.RequestID + "]")
	}
	return b.String()
}

// newError builds the Error of a failed answer from its body.
func newError(method, path string, resp *Response, body []byte) *Error {
	e := &Error{}
	if !isJSON(resp.Header.Get("Content-Type")) || json.Unmarshal(body, e) != nil {
		e = &Error{Detail: snippet(body)}
	}
	e.Status = resp.StatusCode
	if e.Title == "" {
		e.Title = http.StatusText(resp.StatusCode)
	}
	if e.RequestID == "" {
		e.RequestID = resp.RequestID
	}
	e.Method, e.Path, e.RateLimit = method, path, resp.RateLimit
	return e
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// snippet returns the start of a non-problem body as one printable line.
func snippet(body []byte) string {
	s := strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, strings.ToValidUTF8(string(body), ""))
	return clip(strings.Join(strings.Fields(s), " "), maxDetailRunes)
}

// clip returns s cut to its first n runes, with "…" when it was longer.
func clip(s string, n int) string {
	if len(s) <= n { // fewer bytes than n: fewer runes too
		return s
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// StatusOf returns the HTTP status of the *Error in err's chain, or 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// IsNotFound reports whether err is a 404: the resource does not exist.
func IsNotFound(err error) bool { return StatusOf(err) == http.StatusNotFound }

// IsConflict reports whether err is a 409: a duplicate or forbidden state change.
func IsConflict(err error) bool { return StatusOf(err) == http.StatusConflict }

// IsInvalid reports whether err is a 422: the body broke field rules.
func IsInvalid(err error) bool { return StatusOf(err) == http.StatusUnprocessableEntity }

// IsUnauthorized reports whether err is a 401: no valid token.
func IsUnauthorized(err error) bool { return StatusOf(err) == http.StatusUnauthorized }

// IsForbidden reports whether err is a 403: the token lacks a scope.
func IsForbidden(err error) bool { return StatusOf(err) == http.StatusForbidden }

// IsRateLimited reports whether err is a 429 that retries did not overcome.
func IsRateLimited(err error) bool { return StatusOf(err) == http.StatusTooManyRequests }

// IsUnavailable reports whether err is a 503 that retries did not overcome.
func IsUnavailable(err error) bool { return StatusOf(err) == http.StatusServiceUnavailable }
