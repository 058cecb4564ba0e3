package pg

import (
	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/telemetry"
)

// Tracer is the pgx tracer that gives every statement run inside a span a
// client span following the database semantic conventions, through
// GORM and the pgx connections taken from its pool alike (queries, batches,
// COPY, prepares, connects). The span is named by the operation
// ("SELECT", "INSERT"), carries the statement text as it was sent (with
// $n placeholders, never the arguments), the database, server and user,
// and both db.system.name and the older db.system, postgresql, which
// collectors and backends before semantic conventions 1.26 read.
func Tracer(tp trace.TracerProvider) pgx.QueryTracer {
	return otelpgx.NewTracer(
		// Readiness pings and connections opened outside a request make
		// no trace of their own.
		otelpgx.WithTracerProvider(telemetry.ChildSpansOnly(tp)),
		// Metrics stay Prometheus's (go_sql_*); none from the tracer.
		otelpgx.WithMeterProvider(noop.NewMeterProvider()),
		otelpgx.WithTracerAttributes(attribute.String("db.system", "postgresql")),
	)
}
