package proxy

import (
	"io"
	"net"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/telemetry"
)

// tracerName names the instrumentation of the upstream calls.
const tracerName = "github.com/municipal-apis/platform/gateway/internal/proxy"

// tracingTransport gives every upstream call a client span, child of the
// gateway's server span, and sends its context upstream in traceparent
// (and tracestate), so the service's server span is its child. The span
// ends when the upstream's body is closed. Attributes name the method, the
// upstream's address, the route prefix and the status: never the path,
// query string or headers.
type tracingTransport struct {
	next   http.RoundTripper
	tracer trace.Tracer
	route  string
	host   string
	port   int
	scheme string
}

func newTracingTransport(next http.RoundTripper, tp trace.TracerProvider, prefix, scheme, hostport string) *tracingTransport {
	host, port := hostport, 0
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host = h
		port, _ = strconv.Atoi(p)
	}
	if port == 0 {
		port = map[string]int{"http": 80, "https": 443}[scheme]
	}
	return &tracingTransport{next: next, tracer: tp.Tracer(tracerName), route: prefix, host: host, port: port, scheme: scheme}
}

func (t *tracingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	method := req.Method
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
	default:
		method = "_OTHER"
	}
	ctx, span := t.tracer.Start(req.Context(), method, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		semconv.HTTPRequestMethodKey.String(method),
		semconv.ServerAddress(t.host),
		semconv.ServerPort(t.port),
		semconv.URLScheme(t.scheme),
		// The gateway's route, so a trace tells which upstream was called.
		semconv.HTTPRoute(t.route),
	))
	// The outgoing request is the proxy's own copy; its headers may change.
	out := req.WithContext(ctx)
	telemetry.Propagator.Inject(ctx, propagation.HeaderCarrier(out.Header))
	resp, err := t.next.RoundTrip(out)
	if err != nil {
		span.SetStatus(codes.Error, "")
		span.SetAttributes(semconv.ErrorTypeKey.String(errorType(err)))
		span.End()
		return resp, err
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode))
	if resp.StatusCode >= 500 {
		span.SetStatus(codes.Error, "")
		span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(resp.StatusCode)))
	}
	if resp.Body == nil || resp.Body == http.NoBody || resp.StatusCode == http.StatusSwitchingProtocols {
		span.End()
		return resp, nil
	}
	resp.Body = &spanBody{ReadCloser: resp.Body, span: span}
	return resp, nil
}

// errorType is the low-cardinality kind of a failed upstream call.
func errorType(err error) string {
	if isTimeout(err) {
		return "timeout"
	}
	return "unreachable"
}

// spanBody ends the upstream call's span when the proxy has copied the
// body and closes it.
type spanBody struct {
	io.ReadCloser
	span trace.Span
}

func (b *spanBody) Close() error {
	err := b.ReadCloser.Close()
	b.span.End()
	return err
}
