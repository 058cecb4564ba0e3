package pgtest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Point says when Proxy.Sever cuts a connection.
type Point int

const (
	// Before cuts the connection before the server sees the statement, as
	// a client process that died just before sending it.
	Before Point = iota
	// After lets the server run the statement, then cuts the connection
	// before its answer reaches the client, as a network or a server that
	// failed just after it.
	After
	// Hold keeps the statement and the connection: the server never sees
	// it and the client never gets an answer or a close, as a frozen server
	// or a network path that acknowledges and delivers nothing. New
	// connections hang at their startup from then on.
	Hold
)

// Proxy is a TCP proxy in front of the test server that can cut a client's
// connection at one chosen statement, for tests of what a crash between two
// statements leaves behind, or hold it (Hold). Its URL makes pgx send the text of every
// statement (default_query_exec_mode=exec), so statements can be matched.
type Proxy struct {
	target string
	ln     net.Listener
	url    string

	mu      sync.Mutex
	prefix  string // lower case; "" when not armed
	at      Point
	cuts    int
	frozen  bool // a statement was held: new connections hang too
	refuse  bool // new connections are closed at once (Refuse)
	waiting int  // connections opened after a statement was held
	conns   map[net.Conn]bool
}

// NewProxy starts a proxy in front of the server of dsn (a URL, such as
// NewURL returns) and stops it when tb ends.
func NewProxy(tb testing.TB, dsn string) *Proxy {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatalf("pgtest: proxy: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("pgtest: proxy: %v", err)
	}
	p := &Proxy{target: u.Host, ln: ln, conns: map[net.Conn]bool{}}
	u.Host = ln.Addr().String()
	q := u.Query()
	q.Set("default_query_exec_mode", "exec")
	u.RawQuery = q.Encode()
	p.url = u.String()
	go p.accept()
	tb.Cleanup(p.close)
	return p
}

// URL is dsn through the proxy.
func (p *Proxy) URL() string { return p.url }

// Sever arms the proxy: the next statement whose SQL starts with prefix
// (ignoring case and leading space) ends the connection that sends it,
// at the point given, or is held (Hold). Only one cut is armed at a time.
func (p *Proxy) Sever(prefix string, at Point) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prefix, p.at = strings.ToLower(prefix), at
}

// Refuse makes the proxy a server that is not up yet while on: a new
// connection is closed as soon as it is accepted, before its startup. The
// connections already made are kept.
func (p *Proxy) Refuse(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse = on
}

// refusing reports whether Refuse is on.
func (p *Proxy) refusing() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refuse
}

// Waiting reports how many connections clients opened after a statement
// was held (Hold) to start a session: each waits for a server that never
// answers its startup. The cancel requests pgx sends on a connection of
// their own as it closes a broken one are not counted.
func (p *Proxy) Waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiting
}

// Cuts reports how many connections the proxy has cut.
func (p *Proxy) Cuts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cuts
}

// take disarms the proxy and returns the point of the cut when sql is the
// armed statement.
func (p *Proxy) take(sql string) (Point, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prefix == "" || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(sql)), p.prefix) {
		return 0, false
	}
	p.prefix = ""
	p.cuts++
	p.frozen = p.frozen || p.at == Hold
	return p.at, true
}

// isFrozen reports whether a statement was held.
func (p *Proxy) isFrozen() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.frozen
}

// cancelRequestCode is the code of a CancelRequest, in the place of a
// startup message's protocol version.
const cancelRequestCode = 80877102

// wait counts client among the waiting connections unless it sends a
// CancelRequest, then reads what it sends until it gives up.
func (p *Proxy) wait(client net.Conn) {
	var head [8]byte
	if _, err := io.ReadFull(client, head[:]); err != nil {
		return
	}
	if binary.BigEndian.Uint32(head[4:]) != cancelRequestCode {
		p.mu.Lock()
		p.waiting++
		p.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, client)
}

func (p *Proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.refusing() {
			_ = client.Close()
			continue
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		if !p.track(client, server) {
			return
		}
		go p.pipe(client, server)
	}
}

// track records a pair of connections to close with the proxy; false when
// the proxy is closed already.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = true
	}
	return true
}

func (p *Proxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

// pipe relays one client connection: the client's messages are read one by
// one to find the armed statement; the server's are copied, or withheld
// until the server is ready again and then the connection is cut.
func (p *Proxy) pipe(client, server net.Conn) {
	cut := func() { _ = client.Close(); _ = server.Close() }
	defer cut()
	withhold := make(chan struct{})
	var once sync.Once
	go func() {
		defer cut()
		_ = relayServer(server, client, withhold)
	}()
	if p.isFrozen() { // what the client sends goes nowhere, until it gives up
		p.wait(client)
		return
	}
	if err := relayStartup(client, server); err != nil {
		return
	}
	for {
		typ, msg, err := readMessage(client)
		if err != nil {
			return
		}
		if at, ok := p.take(statementOf(typ, msg)); ok {
			switch at {
			case Before:
				return
			case Hold:
				_, _ = io.Copy(io.Discard, client)
				return
			}
			once.Do(func() { close(withhold) })
		}
		if _, err := server.Write(msg); err != nil {
			return
		}
	}
}

// relayStartup copies the untyped startup message of the client.
func relayStartup(client, server net.Conn) error {
	var head [4]byte
	if _, err := io.ReadFull(client, head[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n < 8 || n > 1<<16 {
		return fmt.Errorf("startup message of %d bytes", n)
	}
	rest := make([]byte, n-4)
	if _, err := io.ReadFull(client, rest); err != nil {
		return err
	}
	_, err := server.Write(append(head[:], rest...))
	return err
}

// relayServer copies the server's messages to the client until withhold is
// closed; from then on it drops them, and returns once the server said it
// is ready for a new statement (the armed one has run).
func relayServer(server, client net.Conn, withhold <-chan struct{}) error {
	for {
		typ, msg, err := readMessage(server)
		if err != nil {
			return err
		}
		select {
		case <-withhold:
			if typ == 'Z' {
				return errors.New("cut after the statement ran")
			}
			continue
		default:
		}
		if _, err := client.Write(msg); err != nil {
			return err
		}
	}
}

// readMessage reads one typed protocol message, returned whole.
func readMessage(r io.Reader) (byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[1:])
	if n < 4 || n > 1<<30 {
		return 0, nil, fmt.Errorf("message %q of %d bytes", head[0], n)
	}
	msg := make([]byte, 1+n)
	copy(msg, head[:])
	if _, err := io.ReadFull(r, msg[5:]); err != nil {
		return 0, nil, err
	}
	return head[0], msg, nil
}

// statementOf returns the SQL of a simple query or of a parse message.
func statementOf(typ byte, msg []byte) string {
	body := msg[5:]
	switch typ {
	case 'Q':
		text, _, _ := strings.Cut(string(body), "\x00")
		return text
	case 'P':
		_, rest, _ := strings.Cut(string(body), "\x00") // the statement name
		text, _, _ := strings.Cut(rest, "\x00")
		return text
	}
	return ""
}
