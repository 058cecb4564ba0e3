package gateway

import (
	"net/http"
	"strconv"
	"time"

	"github.com/municipal-apis/platform/gateway/internal/clientip"
	"github.com/municipal-apis/platform/gateway/internal/proxy"
	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/server"
)

// handler serves every request that is not a probe: admit (limits and
// token), then route, then proxy.
type handler struct {
	routes    route.Table
	upstreams map[string]*proxy.Upstream // by route prefix
	tokens    *tokenCache
	limits    *ratelimit.Limits // nil when rate limiting is off
	clientIP  clientip.Policy
	maxBody   int64
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	src := h.clientIP.Of(r)
	p, pathErr := route.Canonicalize(r.URL.EscapedPath())
	rt, routed := h.routes.Match(p)
	if routed {
		server.SetRoute(r, rt.Prefix)
	}
	claims, err := h.admit(w, r, src)
	if err == nil {
		err = h.checkRequest(w, r, pathErr, routed)
	}
	if err != nil {
		problem.Write(w, r, err)
		return
	}
	path, rawPath := rt.Strip(p)
	h.upstreams[rt.Prefix].ServeHTTP(w, r, proxy.Forward{
		Path:         path,
		RawPath:      rawPath,
		ClientID:     claims.ClientID,
		Department:   claims.Department,
		ForwardedFor: src.ForwardedFor,
	})
}

// admit verifies the bearer token and applies the rate limits, setting their
// headers on w whatever the outcome.
func (h *handler) admit(w http.ResponseWriter, r *http.Request, src clientip.Source) (*auth.Claims, error) {
	claims, ok := h.tokens.Cached(r)
	if !ok {
		var err error
		if claims, err = h.authenticate(w, r, src); err != nil {
			return nil, err
		}
	}
	if h.limits != nil {
		d := h.limits.CountCaller(r.Context(), claims.ClientID, claims.Department)
		if d.Reached() {
			return nil, tooMany(w, d)
		}
		d.SetHeaders(w.Header(), time.Now())
	}
	return claims, nil
}

// authenticate verifies a token the gateway has not seen. A well-formed
// token whose signing key is held is always verified: that costs no request
// to the identity provider, so a valid token from an address shared with a
// misbehaving client (an office behind NAT) still passes. Anything else
// (no token, garbage, an unknown kid) from an address that already sent too
// many requests without a valid token is refused before it is looked at, so
// a flood never reaches the identity provider. A failure counts against the
// address.
func (h *handler) authenticate(w http.ResponseWriter, r *http.Request, src clientip.Source) (*auth.Claims, error) {
	ip := clientip.Key(src.Addr)
	if h.limits != nil && !h.tokens.HoldsKeyFor(r) {
		if d := h.limits.PeekIP(r.Context(), ip); d.Reached() {
			return nil, tooMany(w, d)
		}
	}
	claims, err := h.tokens.Authenticate(r)
	if err != nil && h.limits != nil {
		h.limits.CountIP(r.Context(), ip).SetHeaders(w.Header(), time.Now())
	}
	return claims, err
}

// checkRequest refuses what an admitted request cannot be forwarded with:
// a malformed path, no route, a tunnelling method, or a body over the limit,
// which it otherwise caps.
func (h *handler) checkRequest(w http.ResponseWriter, r *http.Request, pathErr error, routed bool) error {
	switch {
	case pathErr != nil:
		return pathErr
	case !routed:
		return problem.Errorf(problem.ENOTFOUND, "no service is routed at %s", r.URL.Path)
	case r.Method == http.MethodConnect || r.Method == http.MethodTrace:
		return problem.Errorf(problem.EMETHOD, "method %s is not allowed through the gateway", r.Method)
	}
	return server.CapBody(w, r, h.maxBody)
}

// tooMany sets the headers of a refused request and returns its 429.
func tooMany(w http.ResponseWriter, d ratelimit.Decision) error {
	now := time.Now()
	d.SetHeaders(w.Header(), now)
	retry := d.RetryAfter(now)
	r, _ := d.Limiting()
	return problem.Errorf(problem.ERATELIMIT, "%s; retry after %d seconds", refusal[r.Kind], retry).
		WithHeader("Retry-After", strconv.FormatInt(retry, 10))
}

// refusal explains each kind of 429.
var refusal = map[ratelimit.Kind]string{
	ratelimit.KindIP:         "this address sent too many requests without a valid token",
	ratelimit.KindClient:     "this client has reached its rate limit",
	ratelimit.KindDepartment: "this client's department has reached its rate limit",
}
