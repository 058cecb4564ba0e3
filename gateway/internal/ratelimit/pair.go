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

// takeBackScript takes back one count of KEYS[1] while its window is the
// one the count was made in: the key still exists and has no more than
// ARGV[1] milliseconds left (what it had then, less the time since). It
// never creates the key: a DECR of a key that expired meanwhile made a
// counter of -1 with no expiry, and one that landed in the next window
// lowered that window's count, so a department admitted more than its limit.
var takeBackScript = redis.NewScript(`
local ttl = redis.call("pttl", KEYS[1])
if ttl > 0 and ttl <= tonumber(ARGV[1]) then
	return redis.call("decr", KEYS[1])
end
return false
`)

// GetPair counts a request against first and, unless first refuses it,
// against second: an authenticated request against its client, then its
// department. counted reports whether second counted the request. On
// Redis, limits below LeaseThreshold are counted one request per call and
// larger ones spend leases held in memory (see lease.go); whatever must be
// asked of Redis goes in one pipelined round trip, each counter with its own
// single-key script so the keys may live in different Redis Cluster slots.
// When first refuses, second's count is taken back (takeBackScript, one
// more round trip, only for refused requests; a lease just fetched is kept
// for later), so a client over its limit never spends its department's.
func (s *Store) GetPair(ctx context.Context, first, second Counter) (a, b limiter.Context, counted bool, err error) {
	p, err := fallback(s, ctx,
		func() (counts, error) { return s.redisCount(ctx, []Counter{first, second}) },
		func() (counts, error) { return s.memoryCount(ctx, []Counter{first, second}) })
	return p.ctx[0], p.ctx[1], p.n == 2, err
}

// Count counts a request against c alone, as GetPair does for two.
func (s *Store) Count(ctx context.Context, c Counter) (limiter.Context, error) {
	p, err := fallback(s, ctx,
		func() (counts, error) { return s.redisCount(ctx, []Counter{c}) },
		func() (counts, error) { return s.memoryCount(ctx, []Counter{c}) })
	return p.ctx[0], err
}

// counts is what counting a request against up to two counters answers:
// the state of each, and how many counted it (the first refusal ends it).
type counts struct {
	ctx [2]limiter.Context
	n   int
}

// memoryCount counts in this instance's memory.
func (s *Store) memoryCount(ctx context.Context, cs []Counter) (counts, error) {
	var out counts
	for i, c := range cs {
		v, err := s.memory.Get(ctx, c.Key, c.Rate)
		if err != nil {
			return out, err
		}
		out.ctx[i], out.n = v, i+1
		if v.Reached {
			break
		}
	}
	return out, nil
}

// plan is how one counter of a request is counted on Redis.
type plan struct {
	lease   *lease // nil when counted one request per call
	ask     int64  // how much is asked of Redis; 0 when the lease held here answers
	local   bool   // a token of the lease held here was taken
	spent   bool   // the window's budget is handed out and none is held here: refused without asking
	skipped bool   // a counter before this one refused the request, so this one does not count it
	until   time.Time
	state   limiter.Context // the lease held here as the token was taken, or found spent out
	cmd     *redis.Cmd
}

// redisCount counts a request against cs (at most two) on Redis: from the
// leases held here where they can answer, and for the rest with one
// pipelined round trip. A lease being fetched is locked until its answer
// is in, so the concurrent requests of its caller wait for it instead of
// fetching leases of their own. Those are the only locks held while
// another is taken, and they are taken in the order of cs (client, then
// department), so they cannot deadlock: a lease answered here is read
// while its lock is held in plan, and tokens go back only once every
// fetched lease is unlocked (release). (A request reading its client's
// lease while holding its department's, as one did, stalled every request
// of both for good when another was fetching the client's lease.)
func (s *Store) redisCount(ctx context.Context, cs []Counter) (counts, error) {
	var plans [2]plan
	now := time.Now()
	n := 0
	for i, c := range cs {
		n = i + 1
		if plans[i] = s.plan(c, now); plans[i].spent {
			break
		}
	}
	ps := plans[:n]
	if err := s.ask(ctx, cs[:n], ps); err != nil {
		release(ps, false)
		return counts{}, err
	}
	now = time.Now()
	var out counts
	var back *takeBack
	admitted := true
	for i := range n {
		c, p := cs[i], &ps[i]
		if !admitted {
			p.skipped = true
			switch {
			case p.lease == nil:
				b, err := takeBackOf(s.redisKey(c.Key), p.cmd, now)
				if err != nil {
					release(ps, false)
					return counts{}, err
				}
				back = &b
			case p.ask > 0:
				if err := p.keep(c.Rate, now); err != nil {
					release(ps, false)
					return counts{}, err
				}
			}
			continue
		}
		v, ok, err := p.settle(c.Rate, now)
		if err != nil {
			release(ps, false)
			return counts{}, err
		}
		out.ctx[i], out.n, admitted = v, i+1, ok
	}
	release(ps, true)
	if back != nil {
		if err := s.takeBack(ctx, *back); err != nil {
			return counts{}, err
		}
	}
	if out.n > 0 && !out.ctx[out.n-1].Reached {
		s.events.admitted.Inc()
	}
	return out, nil
}

// takeBack is a count to take back from a Redis counter: its key, the
// milliseconds its window had left when the count was made, and when its
// answer came.
type takeBack struct {
	key      string
	ttl      int64
	answered time.Time
}

// takeBackOf is the take-back of the count cmd made of key.
func takeBackOf(key string, cmd *redis.Cmd, answered time.Time) (takeBack, error) {
	_, ttl, err := countAndTTL(cmd, "count")
	if err != nil {
		return takeBack{}, err
	}
	return takeBack{key: key, ttl: ttl, answered: answered}, nil
}

// takeBack takes b back, unless its window is over by this instance's clock
// (no round trip then) or Redis finds the key gone or in another window.
func (s *Store) takeBack(ctx context.Context, b takeBack) error {
	left := b.ttl - time.Since(b.answered).Milliseconds()
	if left <= 0 {
		return nil
	}
	s.events.roundTrips.Inc()
	if err := takeBackScript.Run(ctx, s.client, []string{b.key}, left).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("take back the count of %s in redis: %w", b.key, err)
	}
	return nil
}

// plan decides how c is counted: one request per call below the lease
// threshold, else a token of the lease held here, a refusal when the
// window's budget is spent out, or a new lease (its lock then held).
func (s *Store) plan(c Counter, now time.Time) plan {
	size := LeaseSize(c.Rate.Limit)
	if size == 1 {
		return plan{ask: 1}
	}
	l := s.leases.locked(c.Key)
	switch {
	case l.valid(now) && l.left > 0:
		l.left--
		p := plan{lease: l, local: true, until: l.expires, state: l.context(c.Rate, now, false)}
		l.mu.Unlock()
		return p
	case l.exhausted(now, c.Rate.Limit):
		p := plan{lease: l, spent: true, state: l.context(c.Rate, now, true)}
		l.mu.Unlock()
		return p
	}
	return plan{lease: l, ask: size}
}

// settle reads p's answer: the counter's state and whether it admits the request.
func (p *plan) settle(rate limiter.Rate, now time.Time) (limiter.Context, bool, error) {
	switch {
	case p.lease == nil:
		v, err := contextOf(p.cmd, rate, now)
		return v, err == nil && !v.Reached, err
	case p.ask > 0:
		if err := p.keep(rate, now); err != nil {
			return limiter.Context{}, false, err
		}
		ok := p.lease.left > 0
		if ok {
			p.lease.left--
		}
		return p.lease.context(rate, now, !ok), ok, nil
	}
	return p.state, !p.spent, nil
}

// keep records the lease Redis granted to p, unspent.
func (p *plan) keep(rate limiter.Rate, now time.Time) error {
	count, ttl, err := countAndTTL(p.cmd, "lease")
	if err != nil {
		return err
	}
	p.lease.fill(p.ask, count, ttl, rate, now)
	return nil
}

// release unlocks the leases fetched for a request. Unless settled, the
// request was not counted: the tokens it took from leases held here go back,
// once every fetched lease is unlocked. A lease fetched for a counter after
// one that refused is kept, unspent, for the requests that follow.
func release(ps []plan, settled bool) {
	for i := range ps {
		if p := &ps[i]; p.lease != nil && p.ask > 0 {
			p.lease.mu.Unlock()
		}
	}
	for i := range ps {
		if p := &ps[i]; p.local && (!settled || p.skipped) {
			p.lease.mu.Lock()
			if p.lease.expires.Equal(p.until) {
				p.lease.left++
			}
			p.lease.mu.Unlock()
		}
	}
}

// ask sends, in one pipelined round trip, the script call of every plan
// that asks Redis for something; nothing when the leases held here answered.
func (s *Store) ask(ctx context.Context, cs []Counter, ps []plan) error {
	asks := false
	for i := range ps {
		asks = asks || ps[i].ask > 0
	}
	if !asks {
		return nil
	}
	run := func(p redis.Pipeliner, eval bool) {
		for i := range ps {
			if ps[i].ask == 0 {
				continue
			}
			keys := []string{s.redisKey(cs[i].Key)}
			args := []any{ps[i].ask, cs[i].Rate.Period.Milliseconds()}
			if eval {
				ps[i].cmd = incrScript.Eval(ctx, p, keys, args...)
			} else {
				ps[i].cmd = incrScript.EvalSha(ctx, p, keys, args...)
			}
		}
	}
	s.events.roundTrips.Inc()
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error { run(p, false); return nil })
	if redis.HasErrorPrefix(err, "NOSCRIPT") {
		// Redis restarted and forgot the script: send it whole once.
		s.events.roundTrips.Inc()
		_, err = s.client.Pipelined(ctx, func(p redis.Pipeliner) error { run(p, true); return nil })
	}
	if err != nil {
		return fmt.Errorf("count %s in redis: %w", cs[0].Key, err)
	}
	return nil
}

// redisKey is the Redis key ulule's store uses for key.
func (s *Store) redisKey(key string) string { return s.prefix + ":" + key }

// contextOf turns a {count, milliseconds left} answer of incrScript into a
// limiter.Context the way ulule's Redis store does, but for a key in its
// last millisecond, whose window ends now (windowEnd).
func contextOf(cmd *redis.Cmd, rate limiter.Rate, now time.Time) (limiter.Context, error) {
	count, ttl, err := countAndTTL(cmd, "count")
	if err != nil {
		return limiter.Context{}, err
	}
	return common.GetContextFromState(now, rate, windowEnd(now, ttl, rate.Period), count), nil
}

// countAndTTL reads the {count, milliseconds left} answer of a counting
// script (incrScript, a lease's), what naming it in an error.
func countAndTTL(cmd *redis.Cmd, what string) (count, ttl int64, err error) {
	v, err := cmd.Int64Slice()
	if err != nil {
		return 0, 0, fmt.Errorf("read rate-limit %s: %w", what, err)
	}
	if len(v) != 2 {
		return 0, 0, fmt.Errorf("read rate-limit %s: want {count, ttl}", what)
	}
	return v[0], v[1], nil
}
