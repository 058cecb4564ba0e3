package gateway

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"
	"unsafe"

	"github.com/valyala/fasthttp"

	"github.com/municipal-apis/platform/gateway/internal/clientip"
	"github.com/municipal-apis/platform/gateway/internal/proxy"
	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/requestid"
	"github.com/municipal-apis/platform/pkg/server"
)

// Handler serves every request that is not a probe: admit (limits and
// token), then route, then proxy.
type Handler struct {
	routes    route.Table
	upstreams map[string]*proxy.Upstream // by route prefix
	tokens    *auth.TokenCache
	limits    *ratelimit.Limits // nil when rate limiting is off
	clientIP  clientip.Policy
	maxBody   int64
}

// admission is what the gateway decided about a request it lets through.
type admission struct {
	claims *auth.Claims
	src    clientip.Source
	rt     route.Route
	path   route.Path
}

// admissionKey keys the admission of a request decided before its body was
// invited (Expect), which Serve then uses instead of deciding again.
type admissionKey struct{}

// Serve admits, routes and proxies the request of c.
func (h *Handler) Serve(c *fasthttp.RequestCtx) {
	if a, ok := c.UserValue(admissionKey{}).(*admission); ok {
		h.forward(c, a)
		return
	}
	if a, ok := h.decide(c); ok {
		h.forward(c, &a)
	}
}

// Expect decides a request that expects 100-continue before its body is
// invited: a request without a valid token, over a limit, unrouted or
// declaring a body over the limit is refused without ever being invited to
// send its body, as net/http's server does when its handler answers without
// reading the body.
func (h *Handler) Expect(c *fasthttp.RequestCtx) bool {
	a, ok := h.decide(c)
	if ok {
		c.SetUserValue(admissionKey{}, &a)
	}
	return ok
}

// decide admits c's request or writes its refusal.
func (h *Handler) decide(c *fasthttp.RequestCtx) (admission, bool) {
	if err := checkHead(&c.Request.Header); err != nil {
		server.WriteFastProblem(c, err)
		c.SetConnectionClose() // the head was read one way; the next bytes may be meant another
		return admission{}, false
	}
	src := h.source(c)
	p, pathErr := route.Canonicalize(b2s(c.URI().PathOriginal()))
	rt, routed := h.routes.Match(p)
	if routed {
		server.SetFastRoute(c, rt.Prefix)
	}
	claims, err := h.admit(c, src)
	if err == nil {
		err = h.checkRequest(c, pathErr, routed)
	}
	if err != nil {
		server.WriteFastProblem(c, err)
		return admission{}, false
	}
	return admission{claims: claims, src: src, rt: rt, path: p}, true
}

// forward proxies an admitted request to its route's upstream.
func (h *Handler) forward(c *fasthttp.RequestCtx, a *admission) {
	path, rawPath := a.rt.Strip(a.path)
	// ContentLength is -1 for a chunked body, -2 for none (a GET).
	var body io.Reader
	if n := c.Request.Header.ContentLength(); (n > 0 || n == -1) && c.RequestBodyStream() != nil {
		body = c.RequestBodyStream()
		if n < 0 { // chunked: capped as it is read, failing with *http.MaxBytesError
			body = http.MaxBytesReader(nil, io.NopCloser(body), h.maxBody)
		}
	}
	h.upstreams[a.rt.Prefix].Serve(c, proxy.Forward{
		Path:         path,
		RawPath:      rawPath,
		ClientID:     a.claims.ClientID,
		Department:   a.claims.Department,
		ForwardedFor: a.src.ForwardedFor,
		RequestID:    requestid.From(server.RequestContext(c)),
	}, body)
}

// source is where c's request came from.
func (h *Handler) source(c *fasthttp.RequestCtx) clientip.Source {
	var peer netip.Addr
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		peer = a.AddrPort().Addr()
	}
	return clientip.OfPeer(h.clientIP, peer, c.Request.Header.PeekAll("X-Forwarded-For"))
}

// admit verifies the bearer token and applies the rate limits, setting their
// headers on the response whatever the outcome.
func (h *Handler) admit(c *fasthttp.RequestCtx, src clientip.Source) (*auth.Claims, error) {
	// The header's values are read once and used at once: PeekAll reuses
	// its buffer on the next call.
	authorization := c.Request.Header.PeekAll("Authorization")
	claims, ok := h.tokens.Cached(authorization)
	if !ok {
		var err error
		if claims, err = h.authenticate(c, src, authorization); err != nil {
			return nil, err
		}
	}
	server.SetFastCaller(c, claims.ClientID, claims.Department)
	if h.limits != nil {
		d := h.limits.CountCaller(server.RequestContext(c), claims.ClientID, claims.Department)
		if d.Reached() {
			return nil, tooMany(c, d)
		}
		d.SetHeaders(&c.Response.Header, time.Now())
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
func (h *Handler) authenticate(c *fasthttp.RequestCtx, src clientip.Source, authorization [][]byte) (*auth.Claims, error) {
	ip := clientip.Key(src.Addr)
	ctx := server.RequestContext(c)
	if h.limits != nil && !h.tokens.HoldsKeyFor(authorization) {
		if d := h.limits.PeekIP(ctx, ip); d.Reached() {
			return nil, tooMany(c, d)
		}
	}
	claims, err := h.tokens.AuthenticateHeader(ctx, authorization)
	if err != nil && h.limits != nil {
		h.limits.CountIP(ctx, ip).SetHeaders(&c.Response.Header, time.Now())
	}
	return claims, err
}

// checkRequest refuses what an admitted request cannot be forwarded with:
// a malformed path, no route, a tunnelling method, or a declared body over
// the limit (a chunked one is capped as it is read).
func (h *Handler) checkRequest(c *fasthttp.RequestCtx, pathErr error, routed bool) error {
	switch {
	case c.IsConnect() || c.IsTrace(): // before the path: CONNECT's target is no path
		return problem.Errorf(problem.EMETHOD, "method %s is not allowed through the gateway", c.Method()).
			WithHeader("Allow", allowed)
	case pathErr != nil:
		return pathErr
	case !routed:
		return problem.Errorf(problem.ENOTFOUND, "no service is routed at %s", server.FastPath(c))
	case int64(c.Request.Header.ContentLength()) > h.maxBody:
		return problem.BodyTooLarge(h.maxBody)
	}
	return nil
}

// allowed is the Allow header of the 405 for a tunnelling method (RFC 9110
// 15.5.6): every method the gateway forwards. An upstream may still refuse
// one of them for a resource.
const allowed = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"

// tooMany sets the headers of a refused request and returns its 429.
func tooMany(c *fasthttp.RequestCtx, d ratelimit.Decision) error {
	now := time.Now()
	d.SetHeaders(&c.Response.Header, now)
	retry := d.RetryAfter(now)
	r, _ := d.Limiting()
	server.SetFastLimit(c, string(r.Kind))
	return problem.Errorf(problem.ERATELIMIT, "%s; retry after %d seconds", refusal[r.Kind], retry).
		WithHeader("Retry-After", strconv.FormatInt(retry, 10))
}

// refusal explains each kind of 429.
var refusal = map[ratelimit.Kind]string{
	ratelimit.KindIP:         "this address sent too many requests without a valid token",
	ratelimit.KindClient:     "this client has reached its rate limit",
	ratelimit.KindDepartment: "this client's department has reached its rate limit",
}

// b2s reads b as a string without copying it, for a request's bytes that
// outlive no use of the string.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
