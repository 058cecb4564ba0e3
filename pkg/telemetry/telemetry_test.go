package telemetry_test

import (
	"context"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/telemetry"
	"github.com/municipal-apis/platform/pkg/telemetry/telemetrytest"
)

func load(t *testing.T, env map[string]string) telemetry.Config {
	t.Helper()
	var cfg telemetry.Config
	if err := envconfig.ProcessWith(t.Context(), &envconfig.Config{Target: &cfg, Lookuper: envconfig.MapLookuper(env)}); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestTracingIsOffUnlessAnEndpointOrExporterIsSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		enabled bool
		invalid bool
	}{
		{"nothing set", map[string]string{}, false, false},
		{"only the service name and protocol", map[string]string{"OTEL_SERVICE_NAME": "jobs", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, false},
		{"an endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true, false},
		{"a traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true, false},
		{"the console exporter", map[string]string{"OTEL_TRACES_EXPORTER": "console"}, true, false},
		{"the none exporter beside an endpoint", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, false, false},
		{"the SDK disabled beside an endpoint", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, false, false},
		{"otlp without an endpoint", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, true},
		{"an unknown exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, true, true},
		{"an unknown protocol", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, true, true},
		{"grpc for traces", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}, true, false},
		// Each lost every span, and wrote the SDK's lines into the JSON log.
		{"an endpoint without a scheme", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "notaurl"}, true, true},
		{"an endpoint host and port alone", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, true, true},
		{"a traces endpoint of another scheme", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://c/v1/traces"}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := load(t, tt.env)
			if cfg.Enabled() != tt.enabled {
				t.Errorf("Enabled() = %v, want %v", cfg.Enabled(), tt.enabled)
			}
			if err := cfg.Validate(); (err != nil) != tt.invalid {
				t.Errorf("Validate() = %v, want an error: %v", err, tt.invalid)
			}
			tr, err := telemetry.New(t.Context(), cfg, nil)
			if tt.invalid {
				if err == nil {
					t.Error("New accepted a configuration Validate refuses")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tr.Shutdown() }()
			if tr.Enabled() != tt.enabled {
				t.Errorf("New built tracing enabled=%v, want %v", tr.Enabled(), tt.enabled)
			}
		})
	}
}

func TestSpansReachAnOTLPHTTPReceiverAndShutdownFlushesThem(t *testing.T) {
	t.Parallel()
	rcv := telemetrytest.Start(t)
	cfg := load(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.Endpoint(), "OTEL_SERVICE_NAME": "jobs"})
	tr, err := telemetry.New(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, parent := tr.Tracer("test").Start(context.Background(), "parent")
	_, child := tr.Tracer("test").Start(ctx, "child")
	child.End()
	parent.End()
	if id := telemetry.TraceID(ctx); id != parent.SpanContext().TraceID().String() {
		t.Errorf("TraceID = %q, want the span's %s", id, parent.SpanContext().TraceID())
	}
	// The batcher waits up to 5 s; only Shutdown sends them at once.
	if err := tr.Shutdown(); err != nil {
		t.Fatal(err)
	}
	spans := rcv.WaitFor(t, time.Second, "both spans", func(s []telemetrytest.Span) bool { return len(s) == 2 })
	byName := map[string]telemetrytest.Span{}
	for _, s := range spans {
		byName[s.Name] = s
		if s.Service != "jobs" {
			t.Errorf("span %s has service.name %q, want jobs", s.Name, s.Service)
		}
	}
	if byName["child"].ParentID != byName["parent"].SpanID || byName["child"].TraceID != byName["parent"].TraceID {
		t.Errorf("child %+v is not a child of parent %+v", byName["child"], byName["parent"])
	}
}

func TestOffTracingHasNoProviderAndNoTraceID(t *testing.T) {
	t.Parallel()
	tr, err := telemetry.New(t.Context(), telemetry.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Provider != nil || tr.Tracer("x") != nil || tr.Shutdown() != nil {
		t.Error("tracing off still has a provider")
	}
	if id := telemetry.TraceID(t.Context()); id != "" {
		t.Errorf("TraceID of an untraced context = %q", id)
	}
}

func TestSpansReachAnOTLPGRPCReceiver(t *testing.T) {
	t.Parallel()
	rcv := telemetrytest.StartGRPC(t)
	cfg := load(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.Endpoint(), "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_SERVICE_NAME": "gateway"})
	tr, err := telemetry.New(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, span := tr.Tracer("test").Start(context.Background(), "over grpc")
	span.End()
	if err := tr.Shutdown(); err != nil {
		t.Fatal(err)
	}
	spans := rcv.WaitFor(t, time.Second, "the span", func(s []telemetrytest.Span) bool { return len(s) == 1 })
	if spans[0].Name != "over grpc" || spans[0].Service != "gateway" {
		t.Errorf("received %+v", spans[0])
	}
}
