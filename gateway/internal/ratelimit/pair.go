package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/common"
)

// Counter is one counter a request is counted against.
type Counter struct {
	Key  string
	Rate limiter.Rate
}

// incrScript counts one hit of KEYS[1] in a window of ARGV[2] milliseconds
// and answers {count, milliseconds left}. It is ulule's Redis store script,
// word for word, so counters written here and by ulule's store are the same
// counters.
var incrScript = redis.NewScript(`
local key = KEYS[1]
local count = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local ret = redis.call("incrby", key, ARGV[1])
if ret == count then
	if ttl > 0 then
		redis.call("pexpire", key, ARGV[2])
	end
	return {ret, ttl}
end
ttl = redis.call("pttl", key)
return {ret, ttl}
`)

// GetPair counts a request against first and, unless first refuses it,
// against second: an authenticated request against its client, then its
// department. On Redis both counts go in one pipelined round trip, each
// with its own single-key script so the keys may live in different Redis
// Cluster slots; when first refuses, the count of second is taken back
// (one more round trip, only for refused requests), so a client over its
// limit never spends its department's. counted reports whether second
// counted the request.
func (s *Store) GetPair(ctx context.Context, first, second Counter) (a, b limiter.Context, counted bool, err error) {
	p, err := fallback(s, ctx,
		func() (pair, error) { return s.redisPair(ctx, first, second) },
		func() (pair, error) { return s.memoryPair(ctx, first, second) })
	return p.a, p.b, p.counted, err
}

// pair is what GetPair answers.
type pair struct {
	a, b    limiter.Context
	counted bool
}

// memoryPair is GetPair in this instance's memory.
func (s *Store) memoryPair(ctx context.Context, first, second Counter) (pair, error) {
	a, err := s.memory.Get(ctx, first.Key, first.Rate)
	if err != nil || a.Reached {
		return pair{a: a}, err
	}
	b, err := s.memory.Get(ctx, second.Key, second.Rate)
	return pair{a: a, b: b, counted: err == nil}, err
}

// redisPair is GetPair on Redis.
func (s *Store) redisPair(ctx context.Context, first, second Counter) (pair, error) {
	keys := [2]string{s.redisKey(first.Key), s.redisKey(second.Key)}
	var cmds [2]*redis.Cmd
	run := func(p redis.Pipeliner, eval bool) {
		for i, c := range [2]Counter{first, second} {
			args := []any{1, c.Rate.Period.Milliseconds()}
			if eval {
				cmds[i] = incrScript.Eval(ctx, p, keys[i:i+1], args...)
			} else {
				cmds[i] = incrScript.EvalSha(ctx, p, keys[i:i+1], args...)
			}
		}
	}
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error { run(p, false); return nil })
	if redis.HasErrorPrefix(err, "NOSCRIPT") {
		// Redis restarted and forgot the script: send it whole once.
		_, err = s.client.Pipelined(ctx, func(p redis.Pipeliner) error { run(p, true); return nil })
	}
	if err != nil {
		return pair{}, fmt.Errorf("count %s and %s in redis: %w", first.Key, second.Key, err)
	}
	now := time.Now()
	a, err := contextOf(cmds[0], first.Rate, now)
	if err != nil {
		return pair{}, err
	}
	b, err := contextOf(cmds[1], second.Rate, now)
	if err != nil {
		return pair{}, err
	}
	if !a.Reached {
		return pair{a: a, b: b, counted: true}, nil
	}
	if err := s.client.Decr(ctx, keys[1]).Err(); err != nil {
		return pair{}, fmt.Errorf("take back the count of %s in redis: %w", second.Key, err)
	}
	return pair{a: a}, nil
}

// redisKey is the Redis key ulule's store uses for key.
func (s *Store) redisKey(key string) string { return s.prefix + ":" + key }

// contextOf turns a {count, milliseconds left} answer of incrScript into a
// limiter.Context the way ulule's Redis store does.
func contextOf(cmd *redis.Cmd, rate limiter.Rate, now time.Time) (limiter.Context, error) {
	v, err := cmd.Int64Slice()
	if err != nil {
		return limiter.Context{}, fmt.Errorf("read rate-limit count: %w", err)
	}
	if len(v) != 2 {
		return limiter.Context{}, errors.New("read rate-limit count: want {count, ttl}")
	}
	expiration := now.Add(rate.Period)
	if v[1] > 0 {
		expiration = now.Add(time.Duration(v[1]) * time.Millisecond)
	}
	return common.GetContextFromState(now, rate, expiration, v[0]), nil
}
