package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
	"unsafe"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/requestid"
	"github.com/municipal-apis/platform/pkg/telemetry"
)

// This file is the fasthttp side of the package, for a program whose own
// work per request is a few microseconds around a proxied call (the
// gateway): there net/http's server (a header map, a context and a copy of
// the request per request, a background read per connection) is most of
// the cost. FastHandler keeps Handler's promises on fasthttp: the same
// request ids, server spans, access-log line, metrics, panic recovery,
// /livez and problem bodies, and FastServer drains on Shutdown like an
// http.Server.

// FastOptions wire the shared endpoints and middleware around a program's
// own fasthttp handler, as Options do for Handler.
type FastOptions struct {
	Logger  *slog.Logger
	Metrics *Metrics
	App     fasthttp.RequestHandler
	// Expect, when set, decides a request that expects 100-continue
	// before its body is invited: it either answers the request (a
	// refusal, whose body it writes on the request as App would) and
	// returns false, or returns true, and the client is invited to send
	// the body, after which App serves the request. Without it every such
	// request is invited. What Expect learns of the request (its identity,
	// say) it keeps on the request for App, which must not decide again.
	Expect func(c *fasthttp.RequestCtx) bool
	// Tracer, when set, gives every request but /livez a server span.
	Tracer trace.TracerProvider
}

// FastHandler is the public handler of a program served by a FastServer.
type FastHandler struct {
	o      FastOptions
	tracer trace.Tracer // nil when tracing is off
}

// NewFastHandler returns the handler of o: /livez beside o.App, all behind
// request ids, server spans, access logs, metrics and panic recovery, as
// Handler does. Bodies are not capped here: App caps what it reads.
func NewFastHandler(o FastOptions) *FastHandler {
	h := &FastHandler{o: o}
	if o.Tracer != nil {
		h.tracer = o.Tracer.Tracer(tracerName)
	}
	return h
}

// fastScope is a request's scope and what the chain needs to finish it.
type fastScope struct {
	scope
	start time.Time
	span  trace.Span // nil when tracing is off or the request is a probe
	probe bool
	path  string // FastPath's answer, once asked
}

// fastScopeKey keys a request's *fastScope among its user values.
type fastScopeKey struct{}

// scopeOf returns the scope of c's request, or nil outside a FastHandler.
func scopeOf(c *fasthttp.RequestCtx) *fastScope {
	s, _ := c.UserValue(fastScopeKey{}).(*fastScope)
	return s
}

// Serve serves one request.
func (h *FastHandler) Serve(c *fasthttp.RequestCtx) {
	s := h.begin(c)
	defer h.finish(c, s)
	defer h.recover(c, s)
	if s.probe {
		s.route.route = PathLivez
		c.Response.Header.SetContentType("application/json")
		c.Response.Header.Set("Cache-Control", "no-store")
		c.SetBodyString(livezBody)
		return
	}
	if c.IsOptions() && string(c.Request.Header.RequestURI()) == "*" {
		// OPTIONS * asks about the server, not a resource (RFC 9110,
		// 9.3.7): a 200 without a body, as net/http answers it for the
		// services, and no App to reach (it has no path).
		s.route.route = "*"
		return
	}
	if string(c.URI().PathOriginal()) == PathLivez { // a method other than GET and HEAD
		s.route.route = PathLivez
		WriteFastProblem(c, probeMethodRefused(PathLivez))
		return
	}
	h.o.App(c)
}

// Continue is the server's answer to a request that expects 100-continue:
// 100 to invite its body, or the status of the refusal o.Expect wrote, in
// which case the request is finished (logged, counted) here and Serve never
// runs.
func (h *FastHandler) Continue(c *fasthttp.RequestCtx) int {
	if h.o.Expect == nil {
		return fasthttp.StatusContinue
	}
	s := h.begin(c)
	invite := false
	func() {
		defer h.recover(c, s)
		invite = h.o.Expect(c)
	}()
	if invite {
		return fasthttp.StatusContinue
	}
	h.finish(c, s)
	return c.Response.StatusCode()
}

// begin returns the request's scope, made on the first call for a request
// (Continue's or Serve's): the request id honoured or generated and echoed,
// the trace continued.
func (h *FastHandler) begin(c *fasthttp.RequestCtx) *fastScope {
	if s := scopeOf(c); s != nil {
		return s
	}
	s := &fastScope{start: time.Now()}
	s.Context, s.logger, s.route.route = context.Background(), h.o.Logger, unmatchedRoute
	s.id = requestIDOf(c)
	s.probe = (c.IsGet() || c.IsHead()) && string(c.URI().PathOriginal()) == PathLivez
	if h.tracer != nil && !s.probe {
		ctx := telemetry.Propagator.Extract(s.Context, FastHeaderCarrier{&c.Request.Header})
		scheme := "http"
		if c.IsTLS() {
			scheme = "https"
		}
		s.Context, s.span = startServerSpan(ctx, h.tracer, methodString(c.Method()), scheme, fastProtocolVersion(c))
	}
	c.SetUserValue(fastScopeKey{}, s)
	return s
}

// requestIDOf honours a sane incoming X-Request-ID or generates one, and
// sets it on the request (for the upstream) and the response. The header's
// name is given in the form the server stores names in, which spares
// fasthttp making it so on each of the three calls.
func requestIDOf(c *fasthttp.RequestCtx) string {
	var id string
	if v := c.Request.Header.PeekCanonical(requestIDName); len(v) > 0 {
		id = string(v)
	}
	if !requestid.Valid(id) {
		id = requestid.New()
		c.Request.Header.SetCanonical(requestIDName, readOnly(id))
	}
	c.Response.Header.SetCanonical(requestIDName, readOnly(id))
	return id
}

// requestIDName is requestid.Header as fasthttp's server stores it, which
// is the canonical form net/http gives it.
var requestIDName = []byte(http.CanonicalHeaderKey(requestid.Header))

// readOnly is the bytes of s, for a call that only reads (copies) them.
func readOnly(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// finish records the request in the access log, the metrics and its span.
// A response body that streams (a proxied body) is still to be written: the
// duration is the time to the response's header.
func (h *FastHandler) finish(c *fasthttp.RequestCtx, s *fastScope) {
	setLinger(c, declaresBody(c))
	status := c.Response.StatusCode()
	method := methodString(c.Method())
	d := time.Since(s.start)
	if s.span != nil {
		endServerSpan(s.span, method, s.route.route, status)
		s.span.End()
	}
	h.o.Metrics.observe(s.route.route, method, status, d)
	if !s.probe {
		logRequest(s, h.o.Logger, method, FastPath(c), s.route.route, status, fastBodySize(c), d, "", c.RemoteAddr())
	}
}

// recover turns a panic of the handler into a 500 problem response.
func (h *FastHandler) recover(c *fasthttp.RequestCtx, s *fastScope) {
	v := recover()
	if v == nil {
		return
	}
	logPanic(s, v)
	c.Response.ResetBody()
	WriteFastProblem(c, problem.Wrap(problem.EINTERNAL, errors.New("panic"), ""))
}

// RequestContext is the context of c's request under a FastHandler: it
// carries the request id, the logger and the trace, as an *http.Request's
// does under Handler, but is not cancelled when the client goes away.
func RequestContext(c *fasthttp.RequestCtx) context.Context {
	if s := scopeOf(c); s != nil {
		return s
	}
	return context.Background()
}

// SetFastRoute is SetRoute for a request served by a FastHandler.
func SetFastRoute(c *fasthttp.RequestCtx, route string) {
	if s := scopeOf(c); s != nil && route != "" {
		s.route.route = route
	}
}

// SetFastCaller records who a request served by a FastHandler came from,
// for its log lines (caller).
func SetFastCaller(c *fasthttp.RequestCtx, clientID, department string) {
	if s := scopeOf(c); s != nil {
		s.caller.ClientID, s.caller.Department = clientID, department
	}
}

// SetFastLimit records the kind of rate limit that refused a request served
// by a FastHandler, for its log lines (caller).
func SetFastLimit(c *fasthttp.RequestCtx, kind string) {
	if s := scopeOf(c); s != nil {
		s.caller.Limit = kind
	}
}

// WriteFastProblem is problem.Write for a request served by a FastHandler:
// it replaces the response's status, content and body, keeping the headers
// already set (request id, rate limits).
func WriteFastProblem(c *fasthttp.RequestCtx, err error) {
	writeFastProblem(c, RequestContext(c), FastPath(c), err)
}

// writeFastProblem writes err as the problem of the request at path whose
// request id ctx carries.
func writeFastProblem(c *fasthttp.RequestCtx, ctx context.Context, path string, err error) {
	body, header := problem.Prepare(ctx, path, err)
	rh := &c.Response.Header
	for k, vs := range header {
		rh.Del(k)
		for _, v := range vs {
			rh.Add(k, v)
		}
	}
	rh.SetContentType(problem.ContentType)
	rh.Set("X-Content-Type-Options", "nosniff")
	c.SetStatusCode(body.Status)
	b, merr := json.Marshal(body)
	if merr != nil {
		b = []byte(`{"status":500}`)
	}
	c.SetBody(append(b, '\n'))
}

// FastPath is the request's path as the client sent it, decoded, as an
// *http.Request's URL.Path is: what access logs, problem bodies and the
// program's own routing see. It is decoded once per request.
func FastPath(c *fasthttp.RequestCtx) string {
	s := scopeOf(c)
	if s != nil && s.path != "" {
		return s.path
	}
	p := string(c.URI().PathOriginal())
	if decoded, err := url.PathUnescape(p); err == nil {
		p = decoded
	}
	if s != nil {
		s.path = p
	}
	return p
}

// fastBodySize is the size of the response's body: its Content-Length, or
// -1 for a body streamed without one or written on the hijacked connection.
func fastBodySize(c *fasthttp.RequestCtx) int64 {
	if c.Hijacked() {
		return -1
	}
	if c.Response.IsBodyStream() {
		return int64(c.Response.Header.ContentLength())
	}
	return int64(len(c.Response.Body()))
}

// methodString is string(method), without a copy for the common methods.
func methodString(method []byte) string {
	switch string(method) { // a comparison, not a conversion
	case fasthttp.MethodGet:
		return fasthttp.MethodGet
	case fasthttp.MethodPost:
		return fasthttp.MethodPost
	case fasthttp.MethodHead:
		return fasthttp.MethodHead
	case fasthttp.MethodPut:
		return fasthttp.MethodPut
	case fasthttp.MethodPatch:
		return fasthttp.MethodPatch
	case fasthttp.MethodDelete:
		return fasthttp.MethodDelete
	case fasthttp.MethodOptions:
		return fasthttp.MethodOptions
	}
	return string(method)
}

func fastProtocolVersion(c *fasthttp.RequestCtx) string {
	if c.Request.Header.IsHTTP11() {
		return "1.1"
	}
	return "1.0"
}

// FromHTTP serves h, a net/http handler, under a FastHandler: for what a
// fast program serves rarely (the gateway's /docs). h's request carries the
// request's context (RequestContext), so SetRoute, problem.Write and the
// logger work as under Handler. The response is buffered unless h flushes.
//
// h gets no request body: the adaptor would read a declared one whole into
// memory first (up to the server's bound of 2 GiB, for a request that
// needs no token), so it is left unread, to the server, which drains a
// short rest and closes the connection on a longer one.
func FromHTTP(h http.Handler) fasthttp.RequestHandler {
	adapted := fasthttpadaptor.NewFastHTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := r.Context().(*fasthttp.RequestCtx); ok {
			r = r.WithContext(RequestContext(c))
		}
		h.ServeHTTP(w, r)
	}))
	return func(c *fasthttp.RequestCtx) {
		if declaresBody(c) {
			c.Request.ResetBody()
		}
		adapted(c)
	}
}

// FastHeaderCarrier carries a trace context in a fasthttp request's
// headers, for the propagator to read (a server's request) or write (a
// client's). Names are made canonical, as net/http's are, so the carrier
// finds and replaces them in a header that does not normalize its names.
type FastHeaderCarrier struct{ H *fasthttp.RequestHeader }

func (c FastHeaderCarrier) Get(key string) string {
	return string(c.H.Peek(http.CanonicalHeaderKey(key)))
}
func (c FastHeaderCarrier) Set(key, value string) { c.H.Set(http.CanonicalHeaderKey(key), value) }
func (c FastHeaderCarrier) Keys() []string {
	var keys []string
	for k := range c.H.All() {
		keys = append(keys, string(k))
	}
	return keys
}

// FastServer serves a FastHandler on a listener with a Config's limits and
// timeouts, and drains like an http.Server: a Runner for ServeAll.
type FastServer struct {
	srv          *fasthttp.Server
	writeTimeout time.Duration // of each write to a client (lingerConn)
	// fasthttp's Shutdown stops only the listeners Serve has reached; a
	// Shutdown that comes first (a program stopped as it starts) must
	// still stop a Serve that comes after, as http.Server's does.
	mu     sync.Mutex
	ln     net.Listener
	closed bool
}

// NewFast builds the server of h with the timeouts and header limit of
// cfg, meant as an http.Server's: the request's head must come within
// cfg.ReadHeaderTimeout, then its body within cfg.ReadTimeout. Request
// bodies are streamed to h, which caps them itself (the gateway sets its
// rate-limit headers on a 413 too).
func NewFast(cfg Config, h *FastHandler, logger *slog.Logger) *FastServer {
	readHeaderTimeout := cfg.ReadHeaderTimeout
	if readHeaderTimeout <= 0 || readHeaderTimeout > cfg.ReadTimeout {
		readHeaderTimeout = cfg.ReadTimeout
	}
	return &FastServer{writeTimeout: cfg.WriteTimeout, srv: &fasthttp.Server{
		Handler:       h.Serve,
		ExpectHandler: h.Continue,
		ErrorHandler:  h.refuse,
		// fasthttp's ReadTimeout bounds the head; once it is in, the
		// body has cfg.ReadTimeout.
		ReadTimeout: readHeaderTimeout,
		// A request without a body (no Content-Length, or 0) reads
		// nothing more: its deadline is left alone, one deadline update
		// fewer per request.
		HeaderReceived: func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
			if n := h.ContentLength(); n == 0 || n == -2 {
				return fasthttp.RequestConfig{}
			}
			return fasthttp.RequestConfig{ReadTimeout: cfg.ReadTimeout}
		},
		// No WriteTimeout: it would bound the whole answer, and cut every
		// stream; the connection bounds each write instead (lingerConn).
		IdleTimeout: cfg.IdleTimeout,
		// The request line and headers must fit in the read buffer: a
		// larger head is a 431, as net/http's MaxHeaderBytes makes it.
		ReadBufferSize:               cfg.MaxHeaderBytes,
		MaxRequestBodySize:           maxStreamedBody,
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true,
		NoDefaultServerHeader:        true,
		NoDefaultContentType:         true,
		CloseOnShutdown:              true,
		Logger:                       fastLogger{logger},
	}}
}

// maxStreamedBody is the server's own bound on a body, which the handler
// never lets a body reach: the handler's limit is the one that applies.
const maxStreamedBody = 1<<31 - 1

// Serve serves ln until Shutdown, and returns http.ErrServerClosed at once
// after it.
func (s *FastServer) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return http.ErrServerClosed
	}
	s.ln = &onceCloseListener{Listener: lingerListener{Listener: ln, writeTimeout: s.writeTimeout}}
	s.mu.Unlock()
	return s.srv.Serve(s.ln)
}

// onceCloseListener is a listener both Shutdown and fasthttp close: the
// second Close is not an error.
type onceCloseListener struct {
	net.Listener
	once sync.Once
	err  error
}

func (l *onceCloseListener) Close() error {
	l.once.Do(func() { l.err = l.Listener.Close() })
	return l.err
}

// Shutdown stops accepting connections and waits for the open ones to
// finish their requests and close, or for ctx to be done.
func (s *FastServer) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	ln := s.ln
	s.mu.Unlock()
	if ln != nil {
		// Serve may not have reached fasthttp's Serve yet: closing the
		// listener stops it either way.
		_ = ln.Close()
	}
	return s.srv.ShutdownWithContext(ctx)
}

// refuse answers a request fasthttp could not read (fastError), and logs
// and counts it as Serve does a request it serves: an access-log line and
// the metrics under the route "unmatched", with neither method nor path,
// which the request may not have had in a form worth keeping. What the
// client sent, fasthttp's error text among it, is never logged.
func (h *FastHandler) refuse(c *fasthttp.RequestCtx, err error) {
	ctx := requestid.With(context.Background(), requestid.New())
	status := fastError(c, ctx, err)
	// fasthttp sets the request's time once its head is read: here it is
	// zero. The time to the refusal is known for a connection's first
	// request (from its accept), not for a later one (from its last
	// answer, which fasthttp does not keep): 0 then.
	var d time.Duration
	if start := c.Time(); !start.IsZero() {
		d = time.Since(start)
	} else if c.ConnRequestNum() <= 1 {
		d = time.Since(c.ConnTime())
	}
	h.o.Metrics.observe(unmatchedRoute, "", status, d)
	logRequest(ctx, h.o.Logger, "", "", unmatchedRoute, status, fastBodySize(c), d, "", c.RemoteAddr())
}

// fastError answers a request fasthttp could not read with a problem, as
// every other answer, carrying the request id of ctx: 431 for a head over
// the read buffer, 408 for a client too slow to send it, 413 for a body
// over the server's bound, 400 otherwise (framing a proxy must not guess
// at: two Content-Lengths, a signed one, an unknown transfer coding, two
// Hosts or none, a space before a colon, a control character in a value,
// or no HTTP/1.x at all). The instance is empty: the path, if any, was not
// read. The detail names no byte the client sent.
func fastError(c *fasthttp.RequestCtx, ctx context.Context, err error) int {
	var small *fasthttp.ErrSmallBuffer
	var ne net.Error
	var refusal error
	switch {
	case errors.As(err, &small):
		refusal = problem.Errorf(problem.EHEADTOOLARGE, "the request's head is over the server's limit")
	case errors.As(err, &ne) && ne.Timeout():
		refusal = problem.Errorf(problem.ECLIENTSLOW, "the request did not arrive in time")
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		refusal = problem.Errorf(problem.ETOOLARGE, "the request's body is over the server's limit")
	default:
		refusal = problem.Errorf(problem.EMALFORMED, "the request's head does not parse as HTTP/1.1, or its framing is ambiguous "+
			"(two Content-Length or Host headers, a signed length, a transfer coding other than chunked alone, "+
			"a space before a colon, a control character in a value)")
	}
	// The client may still be sending its head or body: the connection
	// lingers so that it reads this answer rather than a reset.
	setLinger(c, true)
	c.Response.Reset()
	c.Response.SetConnectionClose()
	c.Response.Header.SetCanonical(requestIDName, readOnly(requestid.From(ctx)))
	writeFastProblem(c, ctx, "", refusal)
	return c.Response.StatusCode()
}

// fastLogger sends fasthttp's own complaints to the program's log, without
// what a client sent: fasthttp's errors for a head it could not read quote
// the head, an Authorization header and cookies among it, and a request's
// own logger prefixes its URI. Only the message's format (fasthttp's text),
// numbers, addresses and network errors are written; any other argument is
// left out. A complaint that had to leave out an error is a client's
// request fasthttp refused, already answered, logged and counted (refuse):
// a debug line, so that no client can fill the log with warnings.
type fastLogger struct{ logger *slog.Logger }

func (l fastLogger) Printf(format string, args ...any) {
	level := slog.LevelWarn
	kept := make([]any, len(args))
	for i, a := range args {
		var op *net.OpError
		switch v := a.(type) {
		case int, int64, uint64, float64, time.Duration, net.Addr, *net.OpError:
			kept[i] = v
		case error:
			if errors.As(v, &op) {
				kept[i] = op
				continue
			}
			kept[i], level = "(left out: it may hold what the client sent)", slog.LevelDebug
		default:
			kept[i] = "(left out)"
		}
	}
	l.logger.Log(context.Background(), level, "http server", "detail", fmt.Sprintf(format, kept...))
}
