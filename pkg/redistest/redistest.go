// Package redistest gives tests a Redis: the shared local server, checked
// before use, or a throwaway redis-server process the test can stop and
// restart to exercise outages. Tests fail (never skip) when Redis cannot be
// reached or started.
package redistest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// EnvURL names the variable holding the URL of the shared test Redis; the
// default is the local server on 127.0.0.1:6379, database 0.
const EnvURL = "REDISTEST_URL"

const defaultURL = "redis://127.0.0.1:6379/0"

// pingTimeout bounds one PING round trip.
const pingTimeout = 2 * time.Second

// URL returns the URL of the shared test Redis after checking that it
// answers PING; it fails tb when it does not.
func URL(tb testing.TB) string {
	tb.Helper()
	raw := os.Getenv(EnvURL)
	if raw == "" {
		raw = defaultURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		tb.Fatalf("redistest: parse %s: %v", EnvURL, err)
	}
	if err := Ping(context.Background(), u.Host); err != nil {
		tb.Fatalf("redistest: %v\n(start Redis with: redis-server --daemonize yes; or set %s)", err, EnvURL)
	}
	return raw
}

// Ping sends one RESP PING to the Redis server at addr (host:port) and
// reports an error unless it answers PONG.
func Ping(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("ping redis at %s: %w", addr, err)
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return fmt.Errorf("ping redis at %s: %w", addr, err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return fmt.Errorf("ping redis at %s: %w", addr, err)
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("ping redis at %s: unexpected answer %q", addr, strings.TrimSpace(line))
	}
	return nil
}
