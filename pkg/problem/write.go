package problem

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/requestid"
)

// ContentType is the media type of every error body.
const ContentType = "application/problem+json"

// TypeBase prefixes the slug of a code (its "_" written "-") to form the
// problem "type" URI: urn:municipal:problem:not-found.
const TypeBase = "urn:municipal:problem:"

// Body is the RFC 9457 problem document of every error response.
type Body struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail,omitempty"`
	Instance  string `json:"instance"`
	RequestID string `json:"request_id"`
	// TraceID is the W3C trace id of the request when it is traced.
	TraceID string       `json:"trace_id,omitempty"`
	Errors  []FieldError `json:"errors,omitempty"`
}

// BodyOf builds the problem document of err for request r. Causes of 5xx
// errors never reach the body.
func BodyOf(r *http.Request, err error) Body {
	return bodyOf(r.Context(), r.URL.Path, asError(r.Context(), err))
}

func bodyOf(ctx context.Context, path string, pe *Error) Body {
	status := Status(pe.Code)
	detail := pe.Detail
	if pe.Code == EINTERNAL && detail == "" {
		detail = "an unexpected error occurred; quote the request_id when reporting it"
	}
	return Body{
		Type:      TypeBase + strings.ReplaceAll(string(pe.Code), "_", "-"),
		Title:     statusText(status),
		Status:    status,
		Detail:    detail,
		Instance:  path,
		RequestID: requestid.From(ctx),
		TraceID:   traceID(ctx),
		Errors:    pe.Fields,
	}
}

// traceID is the hex trace id of ctx's span, or "" when it has none.
func traceID(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}

// Write renders err as a problem response. 5xx causes are logged with the
// request id; nothing internal is sent to the client.
//
// A request whose client went away is a 499 whatever failed inside it, since
// the failure is most likely the cancellation itself; it is logged at info.
func Write(w http.ResponseWriter, r *http.Request, err error) {
	body, header := Prepare(r.Context(), r.URL.Path, err)
	h := w.Header()
	for k, vs := range header {
		h[k] = vs
	}
	h.Set("Content-Type", ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Del("Content-Length")
	w.WriteHeader(body.Status)
	_ = json.NewEncoder(w).Encode(body)
}

// Prepare is Write without the response: the document of err for the
// request of ctx at path, and the headers err asks for (Retry-After,
// WWW-Authenticate), with the failure logged as Write logs it. A server
// that does not write through an http.ResponseWriter (the gateway's) sends
// them with Content-Type ContentType and X-Content-Type-Options: nosniff.
func Prepare(ctx context.Context, path string, err error) (Body, http.Header) {
	pe := asError(ctx, err)
	body := bodyOf(ctx, path, pe)
	switch {
	case body.Status >= 500:
		Logger(ctx).ErrorContext(ctx, "request failed", "status", body.Status, "path", path, "err", err)
	case body.Status == StatusClientClosedRequest:
		Logger(ctx).InfoContext(ctx, "client went away", "path", path, "err", err)
	}
	return body, pe.Header
}

// statusText is the reason phrase of status, nginx's for 499.
func statusText(status int) string {
	if status == StatusClientClosedRequest {
		return "Client Closed Request"
	}
	return http.StatusText(status)
}

// asError returns the *Error in err's chain; an error without one is
// internal. A 5xx of a request whose client went away becomes ECLIENTGONE.
func asError(ctx context.Context, err error) *Error {
	var pe *Error
	if !errors.As(err, &pe) {
		pe = &Error{Code: EINTERNAL, Err: err}
	}
	if Status(pe.Code) >= 500 && errors.Is(ctx.Err(), context.Canceled) {
		pe = &Error{Code: ECLIENTGONE, Detail: "the client closed the request before it was answered", Err: err}
	}
	return pe
}

// Abort writes err as a problem response and stops the gin handler chain.
// err is also recorded on c, so that middleware can tell why the handler
// failed (pkg/idempotency retries a handler whose transaction was lost).
func Abort(c *gin.Context, err error) {
	Write(c.Writer, c.Request, err)
	_ = c.Error(err)
	c.Abort()
}
