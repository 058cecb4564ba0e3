// Package telemetry configures the OpenTelemetry trace SDK of a program from
// the standard OTEL_* environment variables and carries its tracer provider
// to what every program instruments: the server spans of pkg/server, the SQL
// spans of pkg/pg, the gateway's upstream and Redis calls, search-admin's
// embedding calls and background workers.
//
// Tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER is set (and
// OTEL_SDK_DISABLED is not true). Off, Provider is nil and nothing is
// instrumented at all: no middleware, no driver hook, no allocation per
// request. Context propagates as W3C traceparent/tracestate only.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/version"
)

// Config is what a program reads of the OTEL_* variables. The exporters
// read the rest of the specification's variables themselves
// (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION, _CERTIFICATE and
// their _TRACES_ forms), the SDK reads OTEL_TRACES_SAMPLER, _SAMPLER_ARG and
// OTEL_BSP_*, and the resource OTEL_RESOURCE_ATTRIBUTES.
type Config struct {
	// ServiceName is service.name; each program defaults it to its name.
	ServiceName string `env:"OTEL_SERVICE_NAME"`
	// Exporter is otlp (the default when an endpoint is set), console
	// (spans as JSON on standard output) or none.
	Exporter string `env:"OTEL_TRACES_EXPORTER"`
	// Endpoint is the collector's base URL; http/protobuf appends
	// /v1/traces. TracesEndpoint, when set, is used as it is instead.
	Endpoint       string `env:"OTEL_EXPORTER_OTLP_ENDPOINT"`
	TracesEndpoint string `env:"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"`
	// Protocol is http/protobuf or grpc; TracesProtocol wins when set.
	Protocol       string `env:"OTEL_EXPORTER_OTLP_PROTOCOL, default=http/protobuf"`
	TracesProtocol string `env:"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"`
	Disabled       bool   `env:"OTEL_SDK_DISABLED, default=false"`

	// Provider, when set, is used as it is and never shut down here: the
	// tests' in-memory exporters. It is not read from the environment.
	Provider trace.TracerProvider
}

// Protocols and exporters of the specification this package implements.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"

	ExporterOTLP    = "otlp"
	ExporterConsole = "console"
	ExporterNone    = "none"
)

// Enabled reports whether c turns tracing on.
func (c Config) Enabled() bool {
	if c.Provider != nil {
		return true
	}
	if c.Disabled || c.exporter() == ExporterNone {
		return false
	}
	return c.Exporter != "" || c.Endpoint != "" || c.TracesEndpoint != ""
}

func (c Config) exporter() string {
	if c.Exporter == "" {
		return ExporterOTLP
	}
	return strings.ToLower(strings.TrimSpace(c.Exporter))
}

func (c Config) protocol() string {
	if c.TracesProtocol != "" {
		return c.TracesProtocol
	}
	if c.Protocol == "" {
		return ProtocolHTTP
	}
	return c.Protocol
}

// Validate reports settings that cannot work when tracing is on.
func (c Config) Validate() error {
	if !c.Enabled() || c.Provider != nil {
		return nil
	}
	switch e := c.exporter(); e {
	case ExporterOTLP:
	case ExporterConsole:
		return nil
	default:
		return fmt.Errorf("OTEL_TRACES_EXPORTER %q is not supported (want otlp, console or none)", e)
	}
	switch p := c.protocol(); p {
	case ProtocolHTTP, ProtocolGRPC:
	default:
		return fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q is not supported (want http/protobuf or grpc)", p)
	}
	if c.Endpoint == "" && c.TracesEndpoint == "" {
		return errors.New("OTEL_TRACES_EXPORTER=otlp needs OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	}
	if c.protocol() == ProtocolHTTP {
		// An endpoint without a scheme ("collector:4318") started the
		// program and lost every span ("no Host"), with the SDK's own
		// lines, not JSON, in the log.
		for _, e := range []struct{ name, value string }{
			{"OTEL_EXPORTER_OTLP_ENDPOINT", c.Endpoint}, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", c.TracesEndpoint},
		} {
			if e.value != "" && !program.IsHTTPURL(e.value) {
				return fmt.Errorf("%s must be an http(s) URL with a host, as http/protobuf sends to it", e.name)
			}
		}
	}
	return nil
}

// Tracing is a program's tracing: its tracer provider, or nil when off.
type Tracing struct {
	// Provider is nil when tracing is off: instrumentation checks that
	// and adds nothing.
	Provider trace.TracerProvider
	sdk      *sdktrace.TracerProvider // nil when off or given
}

// Propagator is the one context propagation of the platform: W3C Trace
// Context (traceparent, tracestate). Baggage is not propagated: a client's
// baggage would reach every service and its logs unchecked.
var Propagator propagation.TextMapPropagator = propagation.TraceContext{}

// New builds the tracing of cfg. Off, it returns a Tracing with a nil
// Provider and contacts nothing; on, the exporter sends batches in the
// background and Shutdown flushes them.
func New(ctx context.Context, cfg Config, logger *slog.Logger) (*Tracing, error) {
	if cfg.Provider != nil {
		return &Tracing{Provider: cfg.Provider}, nil
	}
	if !cfg.Enabled() {
		return &Tracing{}, nil
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	exp, err := newExporter(ctx, cfg)
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx,
		resource.WithFromEnv(),
		resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceVersion(version.Version)),
		// Last, so that the configuration wins over OTEL_RESOURCE_ATTRIBUTES.
		resource.WithAttributes(semconv.ServiceName(cfg.ServiceName)),
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	if logger != nil {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			logger.Warn("telemetry export failed", "err", err)
		}))
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Tracing{Provider: tp, sdk: tp}, nil
}

// newExporter builds the span exporter cfg names. Endpoints given here win
// over the exporters' own reading of the environment, so that a Config
// built in a test means what it says.
func newExporter(ctx context.Context, cfg Config) (sdktrace.SpanExporter, error) {
	if cfg.exporter() == ExporterConsole {
		return stdouttrace.New()
	}
	if cfg.protocol() == ProtocolGRPC {
		var opts []otlptracegrpc.Option
		if u := firstOf(cfg.TracesEndpoint, cfg.Endpoint); u != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(u))
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	var opts []otlptracehttp.Option
	switch {
	case cfg.TracesEndpoint != "":
		opts = append(opts, otlptracehttp.WithEndpointURL(cfg.TracesEndpoint))
	case cfg.Endpoint != "":
		opts = append(opts, otlptracehttp.WithEndpointURL(strings.TrimRight(cfg.Endpoint, "/")+"/v1/traces"))
	}
	return otlptracehttp.New(ctx, opts...)
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// Enabled reports whether spans are recorded.
func (t *Tracing) Enabled() bool { return t != nil && t.Provider != nil }

// Tracer returns the named tracer, or nil when tracing is off.
func (t *Tracing) Tracer(name string) trace.Tracer {
	if !t.Enabled() {
		return nil
	}
	return t.Provider.Tracer(name)
}

// ShutdownTimeout bounds how long Shutdown waits for the last batch.
const ShutdownTimeout = 5 * time.Second

// Shutdown flushes the spans not yet exported and stops the exporter,
// within ShutdownTimeout. A given Provider is left to its owner.
func (t *Tracing) Shutdown() error {
	if t == nil || t.sdk == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := t.sdk.Shutdown(ctx); err != nil {
		return fmt.Errorf("flush traces: %w", err)
	}
	return nil
}

// TraceID returns the hex trace id of ctx's span, or "" when there is none.
func TraceID(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.HasTraceID() {
		return ""
	}
	return sc.TraceID().String()
}

// ChildSpansOnly wraps tp so that its tracers record a span only inside
// another one: the statements and commands of a request or of a worker's
// run are traced, the readiness probes, pool dials and watchers that run
// outside any of them make no trace of their own. Nil stays nil.
func ChildSpansOnly(tp trace.TracerProvider) trace.TracerProvider {
	if tp == nil {
		return nil
	}
	return childProvider{tp}
}

type childProvider struct{ trace.TracerProvider }

func (p childProvider) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	return childTracer{p.TracerProvider.Tracer(name, opts...)}
}

type childTracer struct{ trace.Tracer }

func (t childTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, trace.SpanFromContext(ctx) // a no-op span
	}
	return t.Tracer.Start(ctx, name, opts...)
}
