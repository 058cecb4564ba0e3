// Package proxy forwards a routed request to its upstream through a
// fasthttp.HostClient: one connection pool per upstream, identity headers
// replaced by the verified ones, bodies streamed both ways, and upstream
// failures turned into 502/504 problem responses.
package proxy

import (
	"net"
	"net/url"
	"time"

	"github.com/valyala/fasthttp"
)

// Config tunes the connections to every upstream.
type Config struct {
	DialTimeout      time.Duration `env:"UPSTREAM_DIAL_TIMEOUT, default=2s"`
	ResponseTimeout  time.Duration `env:"UPSTREAM_RESPONSE_TIMEOUT, default=30s"`
	IdleConnTimeout  time.Duration `env:"UPSTREAM_IDLE_CONN_TIMEOUT, default=90s"`
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
		ReadTimeout:                   c.ResponseTimeout,
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
			dc.local = &connAddr{Addr: conn.LocalAddr(), conn: dc}
			return dc, nil
		},
	}
}

// deadlineConn is an upstream connection whose read deadline the proxy can
// clear once the response headers are in: its LocalAddr, which fasthttp
// hands to the Response on every request, leads back to it. The address is
// made once per connection, not once per request.
type deadlineConn struct {
	net.Conn
	local *connAddr
}

func (c *deadlineConn) LocalAddr() net.Addr { return c.local }

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
