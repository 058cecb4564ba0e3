package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/telemetry"
)

// NewRedisClient opens a client for rawURL (redis:// or rediss://) whose
// every call, dial included, gives up after timeout and is never retried, so a
// slow or dead Redis costs a request at most one timeout before the store
// falls back.
func NewRedisClient(rawURL string, timeout time.Duration) (*redis.Client, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("parse REDIS_URL: %w", err)
	}
	opts.DialTimeout = timeout
	opts.ReadTimeout = timeout
	opts.WriteTimeout = timeout
	opts.PoolTimeout = timeout
	opts.MaxRetries = -1
	opts.DialerRetries = 1
	opts.DisableIdentity = true
	return redis.NewClient(opts), nil
}

// TraceRedis gives every command client sends for a request a client span
// through tp (db.system redis, the command's name) without its arguments,
// which hold client ids and addresses; the probes and dials of the watcher
// make no trace. A nil tp adds nothing.
func TraceRedis(client *redis.Client, tp trace.TracerProvider) error {
	if tp == nil {
		return nil
	}
	err := redisotel.InstrumentTracing(client,
		redisotel.WithTracerProvider(telemetry.ChildSpansOnly(tp)),
		redisotel.WithDBStatement(false),
		redisotel.WithCallerEnabled(false),
	)
	if err != nil {
		return fmt.Errorf("trace redis: %w", err)
	}
	return nil
}

// LogRedisTo sends go-redis's own messages (pool and dial failures, which the
// store already reports once per transition) to logger at debug level.
func LogRedisTo(logger *slog.Logger) {
	redis.SetLogger(redisLogger{logger})
}

type redisLogger struct{ logger *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.logger.DebugContext(ctx, "redis client", "msg", fmt.Sprintf(format, v...))
}
