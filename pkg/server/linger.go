package server

import (
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// A server that answers a request before reading all of it (a refusal of
// a body over the limit, a token, a rate limit) and then closes the
// connection must not close it while the client is still sending: the
// kernel answers input to a closed socket with a reset, and a client that
// is still writing its body sees the reset ("connection reset by peer")
// instead of the answer waiting in its receive buffer. Go's client, for
// one, reports the failed write and drops the response.
//
// So a FastServer closes such a connection as net/http's server and nginx
// (lingering_close) do: it sends its FIN (CloseWrite), reads and discards
// what the client still sends for a while, and only then closes. The
// client's write completes, it reads the answer, and closes its side.

const (
	// LingerTime bounds how long a connection lingers after its close: a
	// drain can end this long after HTTP_SHUTDOWN_TIMEOUT, which a
	// deployment's grace period must cover.
	LingerTime = 2 * time.Second
	// lingerBytes bounds what a lingering connection reads and discards:
	// more would be free work for a client that streams without end. The
	// connection then waits out LingerTime without reading.
	lingerBytes = 8 << 20
)

// lingerListener accepts connections that linger when closed after a
// request whose body may be unread, and whose writes time out when the
// client stops reading (lingerConn.Write).
type lingerListener struct {
	net.Listener
	writeTimeout time.Duration
}

func (l lingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	_, canLinger := c.(interface{ CloseWrite() error })
	return &lingerConn{Conn: c, writeTimeout: l.writeTimeout, canLinger: canLinger}, nil
}

// lingerConn is an accepted connection that may linger when closed.
type lingerConn struct {
	net.Conn
	writeTimeout time.Duration
	canLinger    bool // the connection can close its sending side alone
	// linger is set when the last request declared a body, which the
	// program may have answered without reading.
	linger atomic.Bool
	closed atomic.Bool
	// stalled is set when a write timed out: the client stopped reading.
	stalled atomic.Bool
}

// Write writes p within the write timeout, counted from this write, not
// from the answer's start: a write timeout bounds how long a client may go
// without reading (nginx's send_timeout), so an event stream that a client
// reads as it comes lasts as long as it likes. It was fasthttp's
// WriteTimeout, a deadline for the whole answer, which cut every stream at
// HTTP_WRITE_TIMEOUT.
func (c *lingerConn) Write(p []byte) (int, error) {
	if c.writeTimeout > 0 {
		if err := c.Conn.SetWriteDeadline(time.Now().Add(c.writeTimeout)); err != nil {
			return 0, err
		}
	}
	n, err := c.Conn.Write(p)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		c.stalled.Store(true)
	}
	return n, err
}

// Close closes the connection, at once unless it lingers; a lingering one
// is closed by a goroutine of its own, so Close never blocks the server
// (fasthttp closes idle connections under a lock on Shutdown).
//
// A connection whose client stopped reading is reset instead (SO_LINGER 0,
// as nginx's reset_timedout_connection does): a plain close would leave the
// kernel holding what the client did not read, up to megabytes of a send
// buffer in FIN-WAIT-1, for as long as the client keeps its window shut.
func (c *lingerConn) Close() error {
	if c.stalled.Load() {
		if tc, ok := c.Conn.(interface{ SetLinger(int) error }); ok {
			_ = tc.SetLinger(0)
		}
		return c.Conn.Close()
	}
	if !c.linger.Load() || !c.canLinger {
		return c.Conn.Close()
	}
	if c.closed.Swap(true) {
		return nil
	}
	go c.lingerClose()
	return nil
}

func (c *lingerConn) lingerClose() {
	defer c.Conn.Close()
	if err := c.Conn.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
		return // the connection is gone already
	}
	end := time.Now().Add(LingerTime)
	if err := c.Conn.SetReadDeadline(end); err != nil {
		return
	}
	if n, err := io.CopyN(io.Discard, c.Conn, lingerBytes); n == lingerBytes && err == nil {
		// A client still sending: stop reading, so its window closes and
		// its writes wait, rather than reset it now; it has the lingering
		// time to read the answer, as net/http's server gives it.
		time.Sleep(time.Until(end))
	}
}

// setLinger decides whether the connection of c lingers when closed after
// its request: every request of the connection decides anew.
func setLinger(c *fasthttp.RequestCtx, on bool) {
	if lc, ok := c.Conn().(*lingerConn); ok {
		lc.linger.Store(on)
	}
}

// declaresBody reports whether c's request declared a body, which its
// handler, or fasthttp for it, may not have read to the end.
func declaresBody(c *fasthttp.RequestCtx) bool {
	n := c.Request.Header.ContentLength() // -1 chunked, -2 none
	return n > 0 || n == -1
}
