package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/requestid"
)

// LogConfig selects the log level and format of a program.
type LogConfig struct {
	Level  string `env:"LOG_LEVEL, default=info"`
	Format string `env:"LOG_FORMAT, default=json"`
}

// Validate refuses a level or a format NewLogger would not know: a typo
// (LOG_LEVEL=verbose) would log at info without a word.
func (c LogConfig) Validate() error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.Level)); err != nil {
		return fmt.Errorf("LOG_LEVEL %q must be debug, info, warn or error", c.Level)
	}
	if !strings.EqualFold(c.Format, "json") && !strings.EqualFold(c.Format, "text") {
		return fmt.Errorf("LOG_FORMAT %q must be json or text", c.Format)
	}
	return nil
}

// NewLogger builds a slog logger writing JSON (or text) to w that adds the
// request id and the trace id of the context to every record.
func NewLogger(w io.Writer, cfg LogConfig) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.Level)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if strings.EqualFold(cfg.Format, "text") {
		return slog.New(contextHandler{Handler: slog.NewTextHandler(w, opts)})
	}
	h := contextHandler{Handler: slog.NewJSONHandler(w, opts)}
	if lb, ok := w.(*LogBuffer); ok {
		h.requests = &requestLines{w: lb, level: level}
	}
	return slog.New(h)
}

// contextHandler adds the caller (client_id, department and limit, when
// set), request_id and trace_id (when the request is traced) from the
// record's context.
type contextHandler struct {
	slog.Handler
	// requests, when set, writes the access-log lines of a JSON handler
	// with no attributes or groups of its own in front of a LogBuffer
	// (the gateway's logger), bypassing slog for the same bytes.
	requests *requestLines
}

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if c := callerOf(ctx); c != nil {
		for _, m := range c.members() {
			if m.value != "" {
				r.AddAttrs(slog.String(m.name, m.value))
			}
		}
	}
	if id := requestid.From(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{Handler: h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{Handler: h.Handler.WithGroup(name)}
}

// DefaultLogger returns the logger of a program's process: cfg's level and
// format on standard error, also installed as slog's default, so that what
// is logged without a logger at hand (a recovered panic) goes there too.
func DefaultLogger(cfg LogConfig) *slog.Logger {
	return DefaultLoggerTo(os.Stderr, cfg)
}

// DefaultLoggerTo is DefaultLogger writing to w (a LogBuffer in front of
// standard error, for a program that logs every request).
func DefaultLoggerTo(w io.Writer, cfg LogConfig) *slog.Logger {
	logger := NewLogger(w, cfg)
	slog.SetDefault(logger)
	return logger
}
