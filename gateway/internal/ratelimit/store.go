package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/memory"
	redisstore "github.com/ulule/limiter/v3/drivers/store/redis"
)

// Store is a limiter.Store that keeps counters in Redis while Redis answers
// and in this instance's memory while it does not. A Redis error never
// reaches the caller: the request is counted in memory instead, the store
// switches to memory, and Watch switches it back once Redis answers PING.
type Store struct {
	client *redis.Client
	prefix string
	memory limiter.Store
	logger *slog.Logger
	events *Metrics

	mu      sync.Mutex    // serializes switches and the creation of redis
	redis   limiter.Store // created on first contact: ulule loads its scripts then
	probed  bool          // the first probe always logs the state it finds
	onRedis atomic.Bool
	leases  leases // this instance's slices of the large limits' windows
}

// NewStore returns a Store for client that starts on memory; call Watch to
// connect it to Redis and keep it there.
func NewStore(client *redis.Client, prefix string, logger *slog.Logger, m *Metrics) *Store {
	s := &Store{
		client: client,
		prefix: prefix,
		memory: memory.NewStoreWithOptions(limiter.StoreOptions{Prefix: prefix, CleanUpInterval: time.Minute}),
		logger: logger,
		events: m,
	}
	m.fallback.Set(1)
	return s
}

// OnRedis reports whether counters are currently kept in Redis.
func (s *Store) OnRedis() bool { return s.onRedis.Load() }

// Get implements limiter.Store.
func (s *Store) Get(ctx context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	return s.do(ctx, func(st limiter.Store) (limiter.Context, error) { return st.Get(ctx, key, rate) })
}

// Peek implements limiter.Store.
func (s *Store) Peek(ctx context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	return s.do(ctx, func(st limiter.Store) (limiter.Context, error) { return st.Peek(ctx, key, rate) })
}

// Reset implements limiter.Store.
func (s *Store) Reset(ctx context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	return s.do(ctx, func(st limiter.Store) (limiter.Context, error) { return st.Reset(ctx, key, rate) })
}

// Increment implements limiter.Store.
func (s *Store) Increment(ctx context.Context, key string, count int64, rate limiter.Rate) (limiter.Context, error) {
	return s.do(ctx, func(st limiter.Store) (limiter.Context, error) { return st.Increment(ctx, key, count, rate) })
}

// do runs op on Redis when it is in use, and on memory when it is not or when it just failed.
func (s *Store) do(ctx context.Context, op func(limiter.Store) (limiter.Context, error)) (limiter.Context, error) {
	return fallback(s, ctx, func() (limiter.Context, error) { return op(s.redis) }, func() (limiter.Context, error) { return op(s.memory) })
}

// fallback runs onRedis when Redis is in use and inMemory when it is not or
// when onRedis just failed, switching the store to memory then; a failure
// that comes from ctx ends the request instead.
func fallback[T any](s *Store, ctx context.Context, onRedis, inMemory func() (T, error)) (T, error) {
	if s.onRedis.Load() {
		v, err := onRedis()
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil {
			var zero T
			return zero, fmt.Errorf("rate-limit store: %w", ctx.Err())
		}
		s.toMemory(err)
	}
	return inMemory()
}

// Watch probes Redis every interval until ctx is done, switching the store
// to Redis when it answers and to memory when it does not.
func (s *Store) Watch(ctx context.Context, interval, timeout time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.Probe(ctx, timeout)
			s.leases.sweep(time.Now())
		}
	}
}

// Probe checks Redis once (Ping), waiting at most timeout, and switches the
// store accordingly; a program calls it once before serving so that it
// starts on Redis when Redis is up.
func (s *Store) Probe(ctx context.Context, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := s.Ping(ctx); err != nil {
		s.toMemory(err)
		return
	}
	if err := s.toRedis(ctx); err != nil {
		s.toMemory(err)
	}
}

// Ping reports whether Redis answers and takes writes, for /readyz and
// Probe: a Redis out of memory, or a replica after a failover, answers PING
// but refuses the counters' writes, and a store switched back to it on PING
// left it at the next request, over and over.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.client.Set(ctx, s.prefix+":{probe}", "1", time.Minute).Err(); err != nil {
		return fmt.Errorf("write to redis: %w", err)
	}
	return nil
}

// toRedis switches to Redis, creating the ulule store on first contact.
func (s *Store) toRedis(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.onRedis.Load() {
		return nil
	}
	s.probed = true
	if s.redis == nil {
		st, err := redisstore.NewStoreWithOptions(s.client, limiter.StoreOptions{Prefix: s.prefix})
		if err != nil {
			return fmt.Errorf("load rate-limit scripts into redis: %w", err)
		}
		s.redis = st
	}
	s.onRedis.Store(true)
	s.events.fallback.Set(0)
	s.events.switches.WithLabelValues("redis").Inc()
	s.logger.InfoContext(ctx, "rate limits: counters are kept in redis")
	return nil
}

// toMemory switches to memory after err, logging only the transition.
func (s *Store) toMemory(err error) {
	s.events.storeErrors.Inc()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.onRedis.Load() && s.probed {
		return
	}
	s.probed = true
	s.onRedis.Store(false)
	s.events.fallback.Set(1)
	s.events.switches.WithLabelValues("memory").Inc()
	var refused redis.Error
	if errors.As(err, &refused) {
		// Redis answered: the cause is in its answer (a database index it
		// does not have, no memory left, a read-only replica), not the network.
		s.logger.Warn("rate limits: redis refuses the counters, counting per instance in memory until it takes them", "err", err)
		return
	}
	s.logger.Warn("rate limits: redis is unreachable, counting per instance in memory until it answers again", "err", err)
}
