// Package proxy forwards a routed request to its upstream through a
// fasthttp.HostClient: one connection pool per upstream, identity headers
// replaced by the verified ones, bodies streamed both ways, and upstream
// failures turned into 502/504 problem responses.
package proxy

import (
	"errors"
	"io"
	"net"
	"net/url"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// Config tunes the connections to every upstream.
type Config struct {
	DialTimeout     time.Duration `env:"UPSTREAM_DIAL_TIMEOUT, default=2s"`
	ResponseTimeout time.Duration `env:"UPSTREAM_RESPONSE_TIMEOUT, default=30s"`
	IdleConnTimeout time.Duration `env:"UPSTREAM_IDLE_CONN_TIMEOUT, default=90s"`
	// MaxConnAge closes a kept-alive connection once this old, when its
	// request is done: a busy gateway would otherwise keep every connection
	// to a Service's address for good, and pods an autoscaler adds behind it
	// (kube-proxy balances connections, not requests) would get none of
	// them. nginx's keepalive_time, Envoy's max_connection_duration.
	MaxConnAge       time.Duration `env:"UPSTREAM_MAX_CONN_AGE, default=1m"`
	MaxIdleConnsHost int           `env:"UPSTREAM_MAX_IDLE_CONNS_PER_HOST, default=256"`
}

// newClient builds the connection pool of the upstream at u. Proxy
// environment variables are ignored: upstreams are reached directly.
//
// ReadTimeout bounds the wait for the response headers (it starts once the
// request is written), and for the rest of a short body, read whole
// (ShortBody); fasthttp would keep it on a streamed body too, so the
// connection's read deadline is cleared once the headers of a longer body
// are in (keepReading), and an event stream may run as long as it likes.
//
// WriteTimeout is set only so that fasthttp calls SetWriteDeadline on the
// connection it took from the pool before it writes, or reads from the
// client's body, anything: the connection checks there that it is still in
// step with the upstream (deadlineConn.SetWriteDeadline) and sets no write
// deadline, as before (a client's body is bounded by the server's read
// timeout).
func newClient(u *url.URL, c Config) *fasthttp.HostClient {
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), map[bool]string{true: "443", false: "80"}[u.Scheme == "https"])
	}
	d := &net.Dialer{Timeout: c.DialTimeout, KeepAlive: 30 * time.Second}
	return &fasthttp.HostClient{
		Addr:                          addr,
		IsTLS:                         u.Scheme == "https",
		MaxConns:                      max(c.MaxIdleConnsHost, 1024),
		MaxIdleConnDuration:           c.IdleConnTimeout,
		MaxConnDuration:               c.MaxConnAge,
		ReadTimeout:                   c.ResponseTimeout,
		WriteTimeout:                  time.Hour, // any positive value; see above
		MaxConnWaitTimeout:            c.DialTimeout,
		NoDefaultUserAgentHeader:      true,
		DisableHeaderNamesNormalizing: true,
		DisablePathNormalizing:        true,
		StreamResponseBody:            true,
		MaxIdemponentCallAttempts:     1,
		ReadBufferSize:                16 << 10,
		Dial: func(addr string) (net.Conn, error) {
			conn, err := d.Dial("tcp", addr)
			if err != nil {
				return nil, err
			}
			dc := &deadlineConn{Conn: conn}
			if sc, ok := conn.(syscall.Conn); ok {
				if raw, err := sc.SyscallConn(); err == nil {
					dc.peeker = newPeeker(raw)
				}
			}
			dc.local = &connAddr{Addr: conn.LocalAddr(), conn: dc}
			return dc, nil
		},
	}
}

// errStaleConn is a pooled connection found unusable before anything of a
// request was sent on it: nothing was written or read from the client's
// body, and the request is sent again on another connection (Serve).
var errStaleConn = errors.New("pooled upstream connection closed by the upstream, or holding bytes no request asked for")

// deadlineConn is an upstream connection whose read deadline the proxy can
// clear once the response headers are in: its LocalAddr, which fasthttp
// hands to the Response on every request, leads back to it. The address is
// made once per connection, not once per request.
//
// It also checks itself each time it is taken from the pool for another
// request. An upstream may close a connection while it is idle (its
// keep-alive timeout is shorter than ours, or it restarted), and may write
// on it what no request asked for (a 408 before closing, the body of a
// response it framed wrongly). Either shows as the socket being readable
// before the request is written; sending the request there would get a
// 502, or worse, read those bytes as this request's answer, which may be
// another client's. nginx drops such a connection from its keep-alive cache
// and Go's Transport notices it with a read it keeps pending; here it is one
// non-blocking peek per reused connection.
type deadlineConn struct {
	net.Conn
	local  *connAddr
	peeker *peeker // nil if the connection has no descriptor
	used   bool    // an answer was read on it: the next write is a reuse

	// Of the request being sent on it: it is not the connection's first,
	// and a byte of its answer came.
	reused, heard bool
}

func (c *deadlineConn) LocalAddr() net.Addr { return c.local }

func (c *deadlineConn) Read(p []byte) (int, error) {
	c.used = true
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.heard = true
	}
	return n, err
}

// SetWriteDeadline is called by fasthttp before each request is written
// (newClient): on a reused connection it fails with errStaleConn when the
// upstream closed it or sent something unasked, and it sets no deadline.
func (c *deadlineConn) SetWriteDeadline(time.Time) error {
	c.reused, c.heard = c.used, false
	if c.used && c.peeker != nil && !c.peeker.idle() {
		return errStaleConn
	}
	return nil
}

// lostOnReuse reports whether err, which ended the request of resp, is the
// upstream closing a reused connection as the request went out on it,
// after the look before reuse found it idle: nothing of an answer came, and
// the connection ended (a timeout or a dial error is not this). It answers
// true once per connection.
func lostOnReuse(resp *fasthttp.Response, err error) bool {
	a, ok := resp.LocalAddr().(*connAddr)
	if !ok || !a.conn.reused || a.conn.heard {
		return false
	}
	a.conn.reused = false // resp keeps the address if the next attempt fails to dial
	return errors.Is(err, fasthttp.ErrConnectionClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

type connAddr struct {
	net.Addr
	conn *deadlineConn
}

// keepReading lifts the response-header deadline from resp's connection.
func keepReading(resp *fasthttp.Response) {
	if a, ok := resp.LocalAddr().(*connAddr); ok {
		_ = a.conn.Conn.SetReadDeadline(time.Time{})
	}
}
