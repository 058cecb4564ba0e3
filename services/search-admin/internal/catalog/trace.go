package catalog

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracerName names the instrumentation of the background workers.
const tracerName = "github.com/municipal-apis/platform/services/search-admin/internal/catalog"

// tracerOf returns tp's tracer of the workers, or nil when tp is nil.
func tracerOf(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		return nil
	}
	return tp.Tracer(tracerName)
}

// startSpan starts a span of a worker's run under ctx (a new trace when
// ctx has none), and returns the function that ends it with the run's
// error. A nil tracer starts nothing.
func startSpan(tracer trace.Tracer, ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, func(error)) {
	if tracer == nil {
		return ctx, func(error) {}
	}
	ctx, span := tracer.Start(ctx, name, trace.WithAttributes(attrs...))
	return ctx, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, "")
		}
		span.End()
	}
}
