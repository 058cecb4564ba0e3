package http_test

import (
	"bytes"
	"encoding/binary"
	"net"
	"strings"
	"sync"
)

// statementWatch reads what a client sends Postgres and calls stop once,
// right after the after-th message that executes a statement whose text
// holds pattern has been handed to the kernel.
type statementWatch struct {
	pattern string
	after   int
	stop    func()

	mu   sync.Mutex
	seen int
}

// wrap watches what is written on conn.
func (w *statementWatch) wrap(conn net.Conn) net.Conn {
	return &watchedConn{Conn: conn, watch: w, statements: map[string]string{}}
}

// matched counts one execution of a matching statement and reports whether
// it is the one to stop after.
func (w *statementWatch) matched() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen++
	return w.seen == w.after
}

// watchedConn parses the frontend protocol messages written on it: Parse
// names a statement's text, Bind executes a named statement, Query runs text.
type watchedConn struct {
	net.Conn
	watch      *statementWatch
	started    bool
	pending    []byte
	statements map[string]string
}

func (c *watchedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if c.scan(p[:n]) {
		c.watch.stop()
	}
	return n, err
}

// protocol3 is the version code of a StartupMessage; an SSLRequest or a
// GSSENCRequest, also without a type byte, may come before it.
const protocol3 = 3 << 16

// scan consumes the complete messages of p and reports whether one of
// them executed the watched statement for the after-th time.
func (c *watchedConn) scan(p []byte) bool {
	c.pending = append(c.pending, p...)
	stop := false
	for {
		if !c.started {
			if len(c.pending) < 8 {
				return stop
			}
			size := int(binary.BigEndian.Uint32(c.pending))
			if len(c.pending) < size {
				return stop
			}
			c.started = binary.BigEndian.Uint32(c.pending[4:]) == protocol3
			c.pending = c.pending[size:]
			continue
		}
		if len(c.pending) < 5 {
			return stop
		}
		size := 1 + int(binary.BigEndian.Uint32(c.pending[1:]))
		if len(c.pending) < size {
			return stop
		}
		kind, body := c.pending[0], c.pending[5:size]
		c.pending = c.pending[size:]
		var text string
		switch kind {
		case 'P':
			name, rest := cstring(body)
			query, _ := cstring(rest)
			c.statements[name] = query
			continue
		case 'B':
			_, rest := cstring(body)
			name, _ := cstring(rest)
			text = c.statements[name]
		case 'Q':
			text, _ = cstring(body)
		default:
			continue
		}
		if strings.Contains(text, c.watch.pattern) && c.watch.matched() {
			stop = true
		}
	}
}

// cstring splits a NUL-terminated string off b.
func cstring(b []byte) (string, []byte) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return string(b), nil
	}
	return string(b[:i]), b[i+1:]
}
