package proxy

import (
	"context"
	"net"
	"strconv"

	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/pkg/telemetry"
)

// tracerName names the instrumentation of the upstream calls.
const tracerName = "github.com/municipal-apis/platform/gateway/internal/proxy"

// tracing gives every upstream call a client span, child of the gateway's
// server span, and sends its context upstream in traceparent (and
// tracestate), so the service's server span is its child. The span ends
// when the upstream's body is copied. Attributes name the method, the
// upstream's address, the route prefix and the status: never the path,
// query string or headers.
type tracing struct {
	tracer trace.Tracer
	attrs  []attribute.KeyValue // the upstream's, the same on every call
}

func newTracing(tp trace.TracerProvider, prefix, scheme, hostport string) *tracing {
	host, port := hostport, 0
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host = h
		port, _ = strconv.Atoi(p)
	}
	if port == 0 {
		port = map[string]int{"http": 80, "https": 443}[scheme]
	}
	return &tracing{tracer: tp.Tracer(tracerName), attrs: []attribute.KeyValue{
		semconv.ServerAddress(host),
		semconv.ServerPort(port),
		semconv.URLScheme(scheme),
		// The gateway's route, so a trace tells which upstream was called.
		semconv.HTTPRoute(prefix),
	}}
}

// start opens the span of one upstream call and writes its context into
// the outgoing request's headers h.
func (t *tracing) start(ctx context.Context, method string, h *fasthttp.RequestHeader) trace.Span {
	switch method {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
	default:
		method = "_OTHER"
	}
	ctx, span := t.tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(t.attrs...), trace.WithAttributes(semconv.HTTPRequestMethodKey.String(method)))
	telemetry.Propagator.Inject(ctx, server.FastHeaderCarrier{H: h})
	return span
}

// answered records the upstream's status on span.
func answered(span trace.Span, status int) {
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	if status >= 500 {
		span.SetStatus(codes.Error, "")
		span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(status)))
	}
}

// failed records on span an upstream call that got no answer.
func failed(span trace.Span, err error) {
	span.SetStatus(codes.Error, "")
	kind := "unreachable"
	if isTimeout(err) {
		kind = "timeout"
	}
	span.SetAttributes(semconv.ErrorTypeKey.String(kind))
}
