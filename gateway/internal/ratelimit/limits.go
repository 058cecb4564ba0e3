// Package ratelimit applies the gateway's three limits (per source IP before
// authentication, per client and per department after it) with ulule/limiter
// on Redis, falling back to per-instance memory while Redis is down.
package ratelimit

import (
	"context"
	"log/slog"
	"net/url"
	"strings"

	"github.com/ulule/limiter/v3"
)

// Kind names a limit in keys, headers and metrics.
type Kind string

// The three limits of the gateway.
const (
	KindIP         Kind = "ip"
	KindClient     Kind = "client"
	KindDepartment Kind = "department"
)

// Config holds the rates of the three limits.
type Config struct {
	Unauthenticated Rate      // per source IP, for requests without a valid token
	PerClient       Rate      // per OAuth client (azp)
	PerDepartment   Rate      // per department claim, unless overridden
	Overrides       Overrides // per-department replacements of PerDepartment
}

// Limits decides whether a request may pass and reports the counters it touched.
type Limits struct {
	store                  *Store
	ip, client, department *limiter.Limiter
	overrides              map[string]*limiter.Limiter
	metrics                *Metrics
}

// New builds the limits of cfg on store.
func New(store *Store, cfg Config, m *Metrics) *Limits {
	l := &Limits{
		store:      store,
		ip:         limiter.New(store, cfg.Unauthenticated.Rate),
		client:     limiter.New(store, cfg.PerClient.Rate),
		department: limiter.New(store, cfg.PerDepartment.Rate),
		overrides:  make(map[string]*limiter.Limiter, len(cfg.Overrides)),
		metrics:    m,
	}
	for dept, r := range cfg.Overrides {
		l.overrides[dept] = limiter.New(store, r.Rate)
	}
	return l
}

// PeekIP checks, without counting, whether ip may still send a request
// without a valid token; it runs before the token is verified so that a flood
// is refused without any work for the identity provider.
func (l *Limits) PeekIP(ctx context.Context, ip string) Decision {
	lc, err := l.ip.Peek(ctx, key(KindIP, ip))
	d := l.decide(ctx, err, Result{Kind: KindIP, Rate: l.ip.Rate, Context: lc})
	if len(d.Results) == 1 && d.Results[0].Remaining <= 0 {
		d.Results[0].Reached = true
		l.metrics.rejections.WithLabelValues(string(KindIP)).Inc()
	}
	return d
}

// CountIP counts a request of ip that carried no valid token.
func (l *Limits) CountIP(ctx context.Context, ip string) Decision {
	lc, err := l.ip.Get(ctx, key(KindIP, ip))
	return l.decide(ctx, err, Result{Kind: KindIP, Rate: l.ip.Rate, Context: lc})
}

// CountCaller counts an authenticated request against its client and, when
// the client is within its limit, against its department, in one Redis
// round trip (Store.GetPair). A token without a department claim is
// limited per client only.
func (l *Limits) CountCaller(ctx context.Context, clientID, department string) Decision {
	if department == "" {
		lc, err := l.store.Count(ctx, Counter{Key: key(KindClient, clientID), Rate: l.client.Rate})
		return l.count(l.decide(ctx, err, Result{Kind: KindClient, Rate: l.client.Rate, Context: lc}))
	}
	dl := l.department
	if o, ok := l.overrides[department]; ok {
		dl = o
	}
	ck, dk := keyPair(clientID, department)
	cc, dc, counted, err := l.store.GetPair(ctx,
		Counter{Key: ck, Rate: l.client.Rate},
		Counter{Key: dk, Rate: dl.Rate})
	d := l.decide(ctx, err, Result{Kind: KindClient, Rate: l.client.Rate, Context: cc})
	if counted {
		d.Results = append(d.Results, Result{Kind: KindDepartment, Rate: dl.Rate, Context: dc})
	}
	return l.count(d)
}

// decide keeps r unless the store failed, which only happens when the
// request itself was cancelled: the request then passes uncounted.
func (l *Limits) decide(ctx context.Context, err error, r Result) Decision {
	if err != nil {
		slog.DebugContext(ctx, "rate limit not evaluated", "kind", r.Kind, "err", err)
		return Decision{}
	}
	// Room for the department's result too: CountCaller appends it.
	results := make([]Result, 1, 2)
	results[0] = r
	return Decision{Results: results}
}

// count records a rejection in the metrics.
func (l *Limits) count(d Decision) Decision {
	if r, ok := d.Limiting(); ok {
		l.metrics.rejections.WithLabelValues(string(r.Kind)).Inc()
	}
	return d
}

// key is the counter name of one subject: a Redis Cluster hash tag around the
// escaped subject keeps each counter in one slot whatever the subject holds.
func key(kind Kind, subject string) string {
	return "{" + string(kind) + ":" + url.QueryEscape(subject) + "}"
}

// keyPair is the client's and the department's keys, built in one string.
func keyPair(clientID, department string) (client, dept string) {
	c, d := url.QueryEscape(clientID), url.QueryEscape(department)
	var b strings.Builder
	b.Grow(len(KindClient) + len(c) + len(KindDepartment) + len(d) + 6)
	for _, part := range [...]string{"{", string(KindClient), ":", c, "}"} {
		b.WriteString(part)
	}
	n := b.Len()
	for _, part := range [...]string{"{", string(KindDepartment), ":", d, "}"} {
		b.WriteString(part)
	}
	both := b.String()
	return both[:n], both[n:]
}
