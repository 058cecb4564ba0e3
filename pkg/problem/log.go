package problem

import (
	"context"
	"log/slog"
)

// loggerKey keys the logger of a request in its context.
type loggerKey struct{}

// WithLogger returns a copy of ctx whose failures Write logs to log: the
// program's own logger, with its format and level, which adds the request
// id of the context to every line.
func WithLogger(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, log)
}

// LoggerKey is the key under which WithLogger stores the logger, for a
// context type that carries the request's state in one value (pkg/server's).
func LoggerKey() any { return loggerKey{} }

// Logger returns the logger of ctx, or slog.Default() when it carries none.
func Logger(ctx context.Context) *slog.Logger {
	if log, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok && log != nil {
		return log
	}
	return slog.Default()
}
