package proxy

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/server"
)

// Forward is what the gateway decided about one request before proxying it.
type Forward struct {
	Path         string // path below the route's prefix, decoded
	RawPath      string // the same path as the client escaped it
	ClientID     string // verified azp
	Department   string // verified department claim, possibly empty
	ForwardedFor string // X-Forwarded-For chain to send
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
	return u
}

// ServeHTTP forwards r as decided by f and streams the answer back; the
// headers already set on w (request id, rate limits) stay, and the
// upstream's copies of them are dropped.
func (u *Upstream) ServeHTTP(w http.ResponseWriter, r *http.Request, f Forward) {
	start := time.Now()
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	u.build(req, r, f)
	resp.StreamBody = true
	var span trace.Span
	if u.tracing != nil {
		span = u.tracing.start(r.Context(), r.Method, &req.Header)
		defer span.End() // once the body is copied, or the call failed
	}
	if err := u.client.Do(req, resp); err != nil {
		if span != nil {
			failed(span, err)
		}
		u.fail(w, r, err, start)
		return
	}
	if span != nil {
		answered(span, resp.StatusCode())
	}
	// The response headers are in: the stream of the body may take as
	// long as the upstream keeps it open (an event stream).
	keepReading(resp)
	body := resp.BodyStream()
	defer func() {
		if c, ok := body.(io.Closer); ok {
			_ = c.Close()
		}
		_ = resp.CloseBodyStream()
	}()
	if r.Context().Err() != nil {
		u.metrics.observeOutcome(u.route.Prefix, "client_closed", start)
		w.WriteHeader(statusClientClosed)
		return
	}
	status := resp.StatusCode()
	u.metrics.observe(u.route.Prefix, status, start)
	copyResponseHeader(w.Header(), &resp.Header)
	w.WriteHeader(status)
	if body == nil || r.Method == http.MethodHead {
		_, _ = w.Write(resp.Body())
		return
	}
	flush := resp.Header.ContentLength() < 0 || bytes.HasPrefix(resp.Header.ContentType(), []byte("text/event-stream"))
	if err := copyBody(w, body, flush); err != nil && r.Context().Err() == nil {
		u.logger.WarnContext(r.Context(), "upstream response body cut short", "route", u.route.Prefix, "err", err)
		// Abort: a client must not take a cut body for a whole one.
		panic(http.ErrAbortHandler)
	}
}

// build fills req from the client's request r: the stripped path on the
// upstream's URL, X-Forwarded-* (with X-Forwarded-Prefix naming the
// stripped prefix, so services can build Location headers clients can
// follow), no hop-by-hop or client-sent identity headers, the verified
// identity, and the body as a stream.
func (u *Upstream) build(req *fasthttp.Request, r *http.Request, f Forward) {
	h := &req.Header
	h.DisableNormalizing() // names come canonical from net/http
	h.SetMethod(r.Method)
	path := (&url.URL{Path: f.Path, RawPath: f.RawPath}).EscapedPath()
	uri := u.base + path
	if !strings.HasPrefix(uri, "/") {
		uri = "/" + uri
	}
	switch q := r.URL.RawQuery; {
	case u.query != "" && q != "":
		uri += "?" + u.query + "&" + q
	case u.query != "" || q != "":
		uri += "?" + u.query + q
	}
	h.SetRequestURI(uri)
	h.SetHost(u.route.Upstream.Host)
	hop := connectionTokens(r.Header)
	for name, values := range r.Header {
		if isHopByHop(name) || forwardedByGateway(name) || isIdentityHeader(name) || (len(hop) > 0 && hop[strings.ToLower(name)]) {
			continue
		}
		for _, v := range values {
			h.Add(name, v)
		}
	}
	if te := r.Header.Get("Te"); strings.Contains(strings.ToLower(te), "trailers") {
		h.Set("Te", "trailers")
	}
	h.Set("X-Forwarded-For", f.ForwardedFor)
	h.Set("X-Forwarded-Host", r.Host)
	h.Set("X-Forwarded-Proto", map[bool]string{false: "http", true: "https"}[r.TLS != nil])
	h.Set(server.ForwardedPrefixHeader, u.route.Prefix)
	h.Set(HeaderClientID, f.ClientID)
	if f.Department != "" {
		h.Set(HeaderDepartment, f.Department)
	}
	if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
		req.SetBodyStream(r.Body, int(r.ContentLength)) // -1: chunked, as it came
	}
}

// hopByHop are the headers of one connection, never forwarded (RFC 9110 7.6.1).
var hopByHop = map[string]bool{
	"Connection": true, "Proxy-Connection": true, "Keep-Alive": true, "Proxy-Authenticate": true,
	"Proxy-Authorization": true, "Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true,
	"Content-Length": true, "Host": true,
}

func isHopByHop(name string) bool { return hopByHop[name] }

// forwardedByGateway are the headers the gateway writes itself; a client's
// own (Forwarded among them) are dropped.
func forwardedByGateway(name string) bool {
	switch name {
	case "Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", server.ForwardedPrefixHeader:
		return true
	}
	return false
}

// connectionTokens are the header names a Connection header lists, lower-case.
func connectionTokens(h http.Header) map[string]bool {
	var out map[string]bool
	for _, v := range h["Connection"] {
		for tok := range strings.SplitSeq(v, ",") {
			if tok = strings.TrimSpace(tok); tok != "" {
				if out == nil {
					out = map[string]bool{}
				}
				out[strings.ToLower(tok)] = true
			}
		}
	}
	return out
}

// copyResponseHeader adds the upstream's response headers to dst, without
// hop-by-hop headers and without the upstream's copies of the gateway's own.
//
// The values are copied into one string and the new header slices share one
// backing array, and a common name is looked up rather than converted, so
// the copy costs a few allocations whatever the number of headers.
func copyResponseHeader(dst http.Header, src *fasthttp.ResponseHeader) {
	size, count := 0, 0
	for _, v := range src.All() {
		size += len(v)
		count++
	}
	var b strings.Builder
	b.Grow(size)
	var slices []string
	for k, v := range src.All() {
		name, ok := commonResponseHeaders[string(k)]
		if !ok {
			name = http.CanonicalHeaderKey(string(k))
		}
		if (isHopByHop(name) && name != "Content-Length") || isGatewayOwned(name) {
			continue
		}
		start := b.Len()
		b.Write(v)
		value := b.String()[start:]
		if old, ok := dst[name]; ok {
			dst[name] = append(old, value)
			continue
		}
		if slices == nil {
			slices = make([]string, count)
		}
		slices[0] = value
		dst[name] = slices[0:1:1]
		slices = slices[1:]
	}
}

// commonResponseHeaders are canonical names upstreams often send, found
// without converting the name to a string first.
var commonResponseHeaders = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{
		"Accept-Ranges", "Age", "Cache-Control", "Content-Disposition", "Content-Encoding",
		"Content-Language", "Content-Length", "Content-Location", "Content-Range", "Content-Type",
		"Date", "Etag", "Expires", "Last-Modified", "Link", "Location", "Retry-After", "Server",
		"Set-Cookie", "Strict-Transport-Security", "Transfer-Encoding", "Vary", "Www-Authenticate",
		"X-Content-Type-Options", "X-Request-Id", "Connection", "Keep-Alive",
	} {
		m[n] = n
		if l := strings.ToLower(n); l != n {
			m[l] = n
		}
	}
	return m
}()

// bufs are the buffers of body copies.
var bufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// copyBody streams body to w, flushing after every read when flush is set
// (an event stream, a body of unknown length), as httputil.ReverseProxy does.
func copyBody(w http.ResponseWriter, body io.Reader, flush bool) error {
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	buf := *bp
	rc := http.NewResponseController(w)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return nil // the client went away; nothing to tell it
			}
			if flush {
				_ = rc.Flush()
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// fail answers a request the upstream could not serve: 413 when the client's
// body ran over the limit, 504 when the upstream timed out, 502 otherwise.
func (u *Upstream) fail(w http.ResponseWriter, r *http.Request, err error, start time.Time) {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		u.metrics.observeOutcome(u.route.Prefix, "too_large", start)
		writeProblem(w, r, tooLarge(mbe.Limit))
	case r.Context().Err() != nil:
		u.metrics.observeOutcome(u.route.Prefix, "client_closed", start)
		w.WriteHeader(statusClientClosed)
	case isTimeout(err):
		u.metrics.observeOutcome(u.route.Prefix, "timeout", start)
		writeProblem(w, r, timedOut(err))
	default:
		u.metrics.observeOutcome(u.route.Prefix, "unreachable", start)
		writeProblem(w, r, unreachable(err))
	}
}

// isTimeout reports whether err is a dial, response-header or deadline timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, fasthttp.ErrTimeout) || errors.Is(err, fasthttp.ErrDialTimeout) ||
		(errors.As(err, &ne) && ne.Timeout())
}
