package embedding

import (
	"context"
	"errors"
	"strings"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// tracerName names the instrumentation of the embedding calls.
const tracerName = "github.com/municipal-apis/platform/services/search-admin/internal/embedding"

// Traced wraps p so that every Embed is a client span "embeddings <model>"
// following the GenAI semantic conventions: the operation, the provider,
// the model and the dimensions asked for, never the text (a search query or
// a Servico's content). Retries happen inside the span. A nil tp returns p.
func Traced(p Provider, tp trace.TracerProvider) Provider {
	if tp == nil {
		return p
	}
	return &traced{Provider: p, tracer: tp.Tracer(tracerName)}
}

type traced struct {
	Provider
	tracer trace.Tracer
}

func (t *traced) Embed(ctx context.Context, text string, dims int) ([]float32, error) {
	provider, model := splitModel(t.Model())
	ctx, span := t.tracer.Start(ctx, "embeddings "+model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		semconv.GenAIOperationNameEmbeddings,
		semconv.GenAIProviderNameKey.String(provider),
		semconv.GenAIRequestModel(model),
		semconv.GenAIEmbeddingsDimensionCount(dims),
	))
	defer span.End()
	vec, err := t.Provider.Embed(ctx, text, dims)
	if err != nil {
		span.SetStatus(codes.Error, "")
		span.SetAttributes(semconv.ErrorTypeKey.String(errorType(ctx, err)))
	}
	return vec, err
}

// errorType is the low-cardinality kind of a failed call.
func errorType(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return "canceled"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "provider_error"
}

// splitModel splits "openai/text-embedding-3-small" into provider and model.
func splitModel(m string) (provider, model string) {
	if provider, model, ok := strings.Cut(m, "/"); ok {
		return provider, model
	}
	return m, m
}
