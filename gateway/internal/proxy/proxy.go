package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/requestid"
	"github.com/municipal-apis/platform/pkg/server"
)

// Forward is what the gateway decided about one request before proxying it.
type Forward struct {
	Path         string // path below the route's prefix, decoded
	RawPath      string // the same path as the client escaped it
	ClientID     string // verified azp
	Department   string // verified department claim, possibly empty
	ForwardedFor string // X-Forwarded-For chain to send
	RequestID    string // the request's id, sent as X-Request-ID
}

// Upstream proxies the requests of one route through a fasthttp.HostClient:
// its connection pool hands a request to a connection without the
// per-connection goroutines and channel hand-offs of net/http's Transport,
// which were most of the gateway's cost (docs/decisions.md). Request and
// response bodies are streamed both ways.
type Upstream struct {
	route   route.Route
	client  *fasthttp.HostClient
	base    string // the upstream URL's escaped path without its trailing slash
	query   string // the upstream URL's own query, put before the client's
	metrics *Metrics
	logger  *slog.Logger
	tracing *tracing // nil when tracing is off
}

// New builds the proxy of r with its own connection pool tuned by cfg;
// logger receives the proxy's own complaints, such as a body copy cut
// short. tp, when set, gives every upstream call a client span and sends
// its context upstream; nil adds nothing to the call.
func New(r route.Route, cfg Config, m *Metrics, logger *slog.Logger, tp trace.TracerProvider) *Upstream {
	u := &Upstream{
		route:   r,
		client:  newClient(r.Upstream, cfg),
		base:    strings.TrimSuffix(r.Upstream.EscapedPath(), "/"),
		query:   r.Upstream.RawQuery,
		metrics: m,
		logger:  logger,
	}
	if tp != nil {
		u.tracing = newTracing(tp, r.Prefix, r.Upstream.Scheme, r.Upstream.Host)
	}
	if m != nil {
		m.stale.WithLabelValues(r.Prefix) // exported at 0 before the first stale connection
	}
	return u
}

// Serve forwards the request of c as decided by f and streams the answer
// back; the headers already set on c's response (request id, rate limits)
// stay, and the upstream's copies of them are dropped. The request's body,
// when it has one, is body: the client's, capped by the caller.
func (u *Upstream) Serve(c *fasthttp.RequestCtx, f Forward, body io.Reader) {
	start := time.Now()
	var client *clientBody
	if body != nil {
		client = &clientBody{r: body}
		body = client
	}
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	u.build(req, c, f, body)
	resp.StreamBody = true
	// fasthttp reads a response without Content-Type as text/plain: the
	// client gets what the upstream sent, none.
	resp.Header.SetNoDefaultContentType(true)
	var span trace.Span
	if u.tracing != nil {
		span = u.tracing.start(server.RequestContext(c), string(c.Method()), &req.Header)
	}
	err := u.client.Do(req, resp)
	// Nothing was sent on a stale connection (errStaleConn), which is
	// closed: the request goes on another, a new one when the pool has no
	// other. A request safe to send twice goes on another too when the
	// upstream closed a reused connection as it went out (lostOnReuse). A
	// fresh connection is neither, so this ends.
	replayable := body == nil && safe(c)
	for range u.client.MaxConns { // at most every pooled connection is stale
		again := errors.Is(err, errStaleConn) || replayable && lostOnReuse(resp, err)
		if !again {
			break
		}
		u.metrics.staleConn(u.route.Prefix)
		err = u.client.Do(req, resp)
	}
	fasthttp.ReleaseRequest(req) // sent whole before the answer is read
	if err != nil {
		if span != nil {
			failed(span, err)
			span.End()
		}
		fasthttp.ReleaseResponse(resp)
		u.fail(c, err, client, start)
		return
	}
	status := resp.StatusCode()
	stream := resp.BodyStream()
	size := resp.Header.ContentLength()
	whole := stream == nil || c.IsHead()
	if !whole && size >= 0 && size <= ShortBody {
		// A short body is read whole before the head goes out, within
		// the response timeout still set on the connection: nothing is
		// streamed, the connection goes back to the pool at once, and a
		// body the upstream cuts or stalls is a 502 or 504, not a cut or
		// hanging answer.
		if err := readShortBody(&c.Response, stream, size); err != nil {
			c.Response.ResetBody()
			if span != nil {
				failed(span, err)
			}
			(&upstreamBody{stream: stream, resp: resp, span: span}).Close()
			u.bodyCut(server.RequestContext(c), err)
			u.fail(c, err, nil, start)
			return
		}
		whole = true
	}
	if span != nil {
		answered(span, status)
	}
	u.metrics.observe(u.route.Prefix, status, start)
	copyResponseHeader(&c.Response.Header, &resp.Header)
	c.SetStatusCode(status)
	if whole {
		switch {
		case c.IsHead():
			// The length a GET would have, or none (-1: chunked, as a
			// GET's body of no stated length would be sent): a HEAD of
			// a chunked resource does not claim an empty body.
			c.Response.SkipBody = true
			c.Response.Header.SetContentLength(max(size, -1))
		case stream == nil:
			c.SetBody(resp.Body())
		}
		(&upstreamBody{stream: stream, resp: resp, span: span}).Close()
		return
	}
	// The response headers are in: the stream of the body may take as
	// long as the upstream keeps it open (an event stream), and is
	// written after Serve returns, each read flushed to the client when
	// the body has no length (chunked, as an event stream is).
	keepReading(resp)
	answer := &upstreamBody{stream: stream, resp: resp, span: span, u: u, ctx: server.RequestContext(c)}
	if size < 0 && !c.Request.Header.IsHTTP11() {
		closeDelimited(c, answer)
		return
	}
	if size < 0 {
		size = -1
	}
	c.Response.ImmediateHeaderFlush = size < 0 || bytes.HasPrefix(resp.Header.ContentType(), []byte("text/event-stream"))
	c.SetBodyStream(answer, size)
}

// closeDelimited answers an HTTP/1.0 client whose answer has no stated
// length (a chunked body, an event stream). HTTP/1.0 has no chunked coding
// (RFC 9112 6.1): the body goes as it comes and ends with the connection,
// as nginx sends it. fasthttp frames every body it writes with a length or
// chunks, so this answer is written on the hijacked connection, with the
// head fasthttp would have written but for its framing.
func closeDelimited(c *fasthttp.RequestCtx, body *upstreamBody) {
	status := c.Response.StatusCode()
	head := fmt.Appendf(make([]byte, 0, 1024), "HTTP/1.1 %d %s\r\nDate: %s\r\n",
		status, fasthttp.StatusMessage(status), time.Now().UTC().Format(http.TimeFormat))
	for k, v := range c.Response.Header.All() {
		if n := b2s(k); isHopByHop(n) || n == fasthttp.HeaderDate { // the framing and date are this answer's
			continue
		}
		head = append(append(append(append(head, k...), ": "...), v...), "\r\n"...)
	}
	head = append(head, "Connection: close\r\n\r\n"...)
	c.HijackSetNoResponse(true)
	c.Hijack(func(conn net.Conn) {
		defer body.Close()
		if _, err := conn.Write(head); err == nil {
			_, _ = io.Copy(conn, body) // each read written as it comes
		}
	})
}

// ShortBody is the largest response body of stated length the proxy reads
// whole before answering (nginx buffers up to 64 KiB by default); a longer
// one, or one without a length (chunked, an event stream), is streamed.
const ShortBody = 16 << 10

// readBuffers hold what readShortBody reads before it is appended: from a
// pool, since an array on the stack would be cleared on every call.
var readBuffers = sync.Pool{New: func() any { return new([4 << 10]byte) }}

// readShortBody appends the size bytes of stream to dst's body, through a
// pooled buffer, and reads on to the stream's end: fasthttp gives the
// connection back to its pool only for a body read to io.EOF.
func readShortBody(dst *fasthttp.Response, stream io.Reader, size int) error {
	buf := readBuffers.Get().(*[4 << 10]byte)
	defer readBuffers.Put(buf)
	read := 0
	for {
		n, err := stream.Read(buf[:])
		dst.AppendBody(buf[:n])
		read += n
		switch {
		case read > size:
			return fmt.Errorf("upstream body longer than its Content-Length %d", size)
		case errors.Is(err, io.EOF) && read < size:
			return io.ErrUnexpectedEOF
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
	}
}

// clientBody is a client's request body on its way upstream. It keeps the
// error its reading ended with: a failure there is the client's (a chunk
// size that does not parse, a client that stopped sending), where every
// other failure of the call is the upstream's.
type clientBody struct {
	r   io.Reader
	err error
}

func (b *clientBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		b.err = err
	}
	return n, err
}

// bodyCut logs an upstream's response body that ended before it was whole.
func (u *Upstream) bodyCut(ctx context.Context, err error) {
	u.logger.WarnContext(ctx, "upstream response body cut short", "route", u.route.Prefix, "err", err)
}

// upstreamBody is an upstream's response body on its way to the client:
// the server reads it after Serve returns, and closes it when the body is
// written or the client is gone, which gives the upstream's connection back
// and ends the call's span.
type upstreamBody struct {
	stream io.Reader
	resp   *fasthttp.Response
	span   trace.Span // nil when tracing is off
	u      *Upstream
	ctx    context.Context
}

func (b *upstreamBody) Read(p []byte) (int, error) {
	n, err := b.stream.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		// The server cuts the connection: a client must not take a cut
		// body for a whole one.
		b.u.bodyCut(b.ctx, err)
	}
	return n, err
}

func (b *upstreamBody) Close() error {
	if c, ok := b.stream.(io.Closer); ok {
		_ = c.Close()
	}
	_ = b.resp.CloseBodyStream()
	fasthttp.ReleaseResponse(b.resp)
	if b.span != nil {
		b.span.End()
	}
	return nil
}

// build fills req from the client's request c: the stripped path on the
// upstream's URL, X-Forwarded-* (with X-Forwarded-Prefix naming the
// stripped prefix, so services can build Location headers clients can
// follow), no hop-by-hop or client-sent identity headers, the verified
// identity, and the body as a stream.
func (u *Upstream) build(req *fasthttp.Request, c *fasthttp.RequestCtx, f Forward, body io.Reader) {
	h := &req.Header
	h.DisableNormalizing() // names come canonical from the server
	// fasthttp would write a body without Content-Type as
	// application/octet-stream: the upstream gets what the client sent.
	h.SetNoDefaultContentType(true)
	h.SetMethodBytes(c.Method())
	path := escapedPath(f.Path, f.RawPath)
	q := c.URI().QueryString()
	// The URI is built on the stack unless it is long; the header keeps a
	// copy.
	var buf [256]byte
	uri := buf[:0]
	switch {
	case u.base != "" && u.base[0] == '/', u.base == "" && path != "" && path[0] == '/':
	default:
		uri = append(uri, '/')
	}
	uri = append(append(uri, u.base...), path...)
	switch {
	case u.query != "" && len(q) > 0:
		uri = append(append(append(append(uri, '?'), u.query...), '&'), q...)
	case u.query != "" || len(q) > 0:
		uri = append(append(append(uri, '?'), u.query...), q...)
	}
	h.SetRequestURIBytes(uri)
	h.SetHost(u.route.Upstream.Host)
	in := &c.Request.Header
	hop := connectionTokens(in.PeekAll("Connection"))
	for name, value := range in.All() {
		n := b2s(name)
		if isHopByHop(n) || droppedFromClient(n) || isIdentityHeader(n) || hop.has(n) {
			continue
		}
		h.AddBytesKV(name, value)
	}
	// The headers below were all dropped from the client's above: they are
	// added, without the search for an existing one that Set makes. No Te:
	// trailers are not relayed (docs/decisions.md), so the upstream is not
	// told the client takes them.
	h.Add(requestIDHeader, f.RequestID)
	h.Add("X-Forwarded-For", f.ForwardedFor)
	h.AddBytesV("X-Forwarded-Host", in.Host())
	if c.IsTLS() {
		h.Add("X-Forwarded-Proto", "https")
	} else {
		h.Add("X-Forwarded-Proto", "http")
	}
	h.Add(server.ForwardedPrefixHeader, u.route.Prefix)
	h.Add(HeaderClientID, f.ClientID)
	if f.Department != "" {
		h.Add(HeaderDepartment, f.Department)
	}
	if body != nil {
		req.SetBodyStream(body, max(in.ContentLength(), -1)) // -1: chunked, as it came
	}
}

// escapedPath is (&url.URL{Path: path, RawPath: rawPath}).EscapedPath(),
// without its checks for the common path that is the same both ways and
// holds only characters no escaping touches.
func escapedPath(path, rawPath string) string {
	if path == rawPath {
		plain := true
		for i := 0; i < len(path) && plain; i++ {
			c := path[i]
			plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
				c == '/' || c == '-' || c == '.' || c == '_' || c == '~'
		}
		if plain {
			return rawPath
		}
	}
	return (&url.URL{Path: path, RawPath: rawPath}).EscapedPath()
}

// b2s reads b as a string without copying it, for a lookup that does not
// keep it.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// isHopByHop reports whether name (canonical) is a header of one
// connection, never forwarded (RFC 9110 7.6.1).
func isHopByHop(name string) bool {
	switch name {
	case "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
		"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
		"Content-Length", "Host":
		return true
	}
	return false
}

// clientDropped are the headers a client never gets to send upstream: those
// the gateway writes itself (Forwarded among them, and the request id, sent
// once, as the gateway chose it), baggage, which is not propagated
// (docs/decisions.md: a client's baggage would reach every service
// unchecked), and the other names proxies and CDNs give the client's
// address: the gateway never reads them (X-Forwarded-For is the address it
// vouches for), and a framework behind it that does (X-Real-IP is the
// second choice of gin's ClientIP) would believe the client. Names are
// compared lower-case with "_" read as "-", as for the identity headers:
// X_Forwarded_For is X-Forwarded-For to a server that reads names the CGI
// way.
var clientDropped = []string{
	"forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto",
	strings.ToLower(server.ForwardedPrefixHeader), strings.ToLower(requestid.Header), "baggage",
	"x-real-ip", "x-client-ip", "true-client-ip", "cf-connecting-ip", "fastly-client-ip",
	"x-cluster-client-ip", "x-original-forwarded-for",
}

// clientDroppedFirst tells whether a header name can be one of
// clientDropped by its first letter, lower-cased: most names cannot.
var clientDroppedFirst = func() (first [256]bool) {
	for _, d := range clientDropped {
		first[d[0]] = true
	}
	return first
}()

// droppedFromClient reports whether name is one of clientDropped.
func droppedFromClient(name string) bool {
	if name == "" || !clientDroppedFirst[name[0]|0x20] {
		return false
	}
	for _, d := range clientDropped {
		if len(name) == len(d) && hasFoldedPrefix(name, d) {
			return true
		}
	}
	return false
}

// requestIDHeader is the request id's name as the upstream gets it.
var requestIDHeader = http.CanonicalHeaderKey(requestid.Header)

// hopNames are the header names the values of a Connection header list,
// lower-case: headers of this connection only (RFC 9110 7.6.1).
type hopNames map[string]bool

// has reports whether name is one of them.
func (h hopNames) has(name string) bool { return len(h) > 0 && h[strings.ToLower(name)] }

// connectionTokens reads the hopNames of a Connection header's values.
func connectionTokens(values [][]byte) hopNames {
	var out hopNames
	for _, v := range values {
		for tok := range strings.SplitSeq(string(v), ",") {
			if tok = strings.TrimSpace(tok); tok != "" && !strings.EqualFold(tok, "close") && !strings.EqualFold(tok, "keep-alive") {
				if out == nil {
					out = hopNames{}
				}
				out[strings.ToLower(tok)] = true
			}
		}
	}
	return out
}

// copyResponseHeader adds the upstream's response headers to dst, without
// hop-by-hop headers (Content-Length among them: the body's framing is the
// server's) and those its Connection header names, the upstream's Date (the
// server writes its own) and the upstream's copies of the gateway's own.
//
// The upstream's names, read as it wrote them, are made canonical in a
// buffer on the stack, so the copy allocates nothing.
func copyResponseHeader(dst *fasthttp.ResponseHeader, src *fasthttp.ResponseHeader) {
	hop := connectionTokens(src.PeekAll("Connection"))
	var buf [128]byte
	for k, v := range src.All() {
		key := canonical(buf[:0], k)
		name := b2s(key)
		if isHopByHop(name) || name == "Date" || isGatewayOwned(name) || hop.has(name) {
			continue
		}
		dst.AddBytesKV(key, v)
	}
}

// canonical appends name to dst in the canonical form of a header name
// ("Content-Type"), as net/http writes it.
func canonical(dst, name []byte) []byte {
	upper := true
	for _, c := range name {
		switch {
		case upper && c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		case !upper && c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		dst = append(dst, c)
		upper = c == '-'
	}
	return dst
}

// fail answers a request that got no answer from the upstream: 413 when the
// client's body ran over the limit, 400 when it was malformed (a chunk that
// does not parse) and 408 when it stopped coming, 504 when the upstream timed
// out, 502 otherwise. client is the request's body, nil without one.
func (u *Upstream) fail(c *fasthttp.RequestCtx, err error, client *clientBody, start time.Time) {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		u.metrics.observeOutcome(u.route.Prefix, "too_large", start)
		server.WriteFastProblem(c, tooLarge(mbe.Limit))
	case client != nil && client.err != nil:
		// The client's doing, not the upstream's: the upstream got a cut
		// body and a closed connection, and counts as answering.
		u.metrics.observeOutcome(u.route.Prefix, "client_body", start)
		c.SetConnectionClose() // the rest of the body cannot be found
		if isTimeout(client.err) {
			server.WriteFastProblem(c, problem.Wrap(problem.ECLIENTSLOW, client.err, "the request body did not arrive in time"))
		} else {
			server.WriteFastProblem(c, problem.Wrap(problem.EMALFORMED, client.err, "the request body is malformed (its chunked framing)"))
		}
	case isTimeout(err):
		u.metrics.observeOutcome(u.route.Prefix, "timeout", start)
		server.WriteFastProblem(c, timedOut(err))
	default:
		u.metrics.observeOutcome(u.route.Prefix, "unreachable", start)
		server.WriteFastProblem(c, unreachable(err))
	}
}

// isTimeout reports whether err is a dial, response-header or deadline timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, fasthttp.ErrTimeout) || errors.Is(err, fasthttp.ErrDialTimeout) ||
		(errors.As(err, &ne) && ne.Timeout())
}

// safe reports whether the request of c may be sent twice: a safe method
// (RFC 9110, 9.2.1), which asks for no change (TRACE, the fourth, is
// refused before it gets here). PUT and DELETE are idempotent too, but a
// DELETE sent again is answered 404 where the first was 204.
func safe(c *fasthttp.RequestCtx) bool {
	return c.IsGet() || c.IsHead() || c.IsOptions()
}
