package server

import (
	"context"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/telemetry"
)

// tracerName names the instrumentation of the server spans.
const tracerName = "github.com/municipal-apis/platform/pkg/server"

// Trace starts a server span for every request but the probes, continuing
// the trace of the request's traceparent header or starting one. The span is
// named by the method and the route template set with SetRoute ("POST
// /api/v1/empregos"), never the raw path; its attributes are the method,
// route, status, scheme and protocol version only: no path, query string,
// header, client address or user agent, which may carry tokens or personal
// data. A nil tp adds nothing.
func Trace(tp trace.TracerProvider) Middleware {
	if tp == nil {
		return func(next http.Handler) http.Handler { return next }
	}
	tracer := tp.Tracer(tracerName)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == PathLivez {
				next.ServeHTTP(w, r)
				return
			}
			ctx := telemetry.Propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
			ctx, info := withRoute(ctx)
			scheme := "http"
			if r.TLS != nil {
				scheme = "https"
			}
			ctx, span := startServerSpan(ctx, tracer, r.Method, scheme, protocolVersion(r))
			defer span.End()
			rec := wrap(w)
			next.ServeHTTP(rec, r.WithContext(ctx))
			endServerSpan(span, r.Method, info.route, rec.status)
		})
	}
}

// startServerSpan opens the server span of a request whose trace context
// ctx carries.
func startServerSpan(ctx context.Context, tracer trace.Tracer, method, scheme, proto string) (context.Context, trace.Span) {
	method = spanMethod(method)
	return tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		semconv.HTTPRequestMethodKey.String(method),
		semconv.URLScheme(scheme),
		semconv.NetworkProtocolVersion(proto),
	))
}

// endServerSpan names span after route, when one matched, and records status;
// the caller ends it.
func endServerSpan(span trace.Span, method, route string, status int) {
	if route != unmatchedRoute {
		span.SetName(spanMethod(method) + " " + route)
		span.SetAttributes(semconv.HTTPRoute(route))
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	if status >= 500 {
		span.SetStatus(codes.Error, "")
		span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(status)))
	}
}

// spanMethod is the method as the semantic conventions name it: a known
// method, or _OTHER, so a client cannot fill span names with its own words.
func spanMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "_OTHER"
}

func protocolVersion(r *http.Request) string {
	switch r.ProtoMajor {
	case 2:
		return "2"
	case 3:
		return "3"
	}
	if r.ProtoMinor == 0 {
		return "1.0"
	}
	return "1.1"
}
