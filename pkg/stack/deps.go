package stack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/redistest"
)

// defaultRedisURL is the local Redis, used when REDISTEST_URL is unset.
const defaultRedisURL = "redis://127.0.0.1:6379/0"

// redisURL returns opts' Redis, else that of the Redis tests.
func redisURL(opts Options) string {
	if opts.RedisURL != "" {
		return opts.RedisURL
	}
	if u := os.Getenv(redistest.EnvURL); u != "" {
		return u
	}
	return defaultRedisURL
}

// checkRedis fails unless the Redis at raw answers PING: the gateway would
// start without it and quietly count in memory.
func checkRedis(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("redis URL: %w", err)
	}
	if err := redistest.Ping(ctx, u.Host); err != nil {
		return fmt.Errorf("%w\n(start Redis with: redis-server --daemonize yes; or point %s, or REDIS_ADDR under make run, at it)", err, redistest.EnvURL)
	}
	return nil
}

// adminExec runs one statement on the Postgres maintenance database; it
// fails with a hint when Postgres cannot be reached.
func adminExec(ctx context.Context, sql string) error {
	return execOn(ctx, pgtest.AdminURL(), sql)
}

// checkServer fails with a hint unless the Postgres server of the
// database dsn answers on its maintenance database.
func checkServer(ctx context.Context, dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return fmt.Errorf("database URL: %w", err)
	}
	u.Path = "/postgres"
	return execOn(ctx, u.String(), "SELECT 1")
}

// execOn runs one statement on the database at dsn.
func execOn(ctx context.Context, dsn, sql string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect to Postgres: %w\n(start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start; or point %s, or PGHOST_ADDR under make run, at it)",
			err, pgtest.EnvAdminURL)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	return nil
}

// dropDatabase removes database name, closing its connections first.
func dropDatabase(ctx context.Context, name string) error {
	return adminExec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
}

// databaseURL is the maintenance URL pointed at database name.
func databaseURL(name string) (string, error) {
	u, err := url.Parse(pgtest.AdminURL())
	if err != nil {
		return "", fmt.Errorf("%s is not a URL: %w", pgtest.EnvAdminURL, err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// uniqueSuffix returns 8 random hex digits for names no other run uses.
func uniqueSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// pickAddrs chooses the listen addresses of a program: FreeAddrs, but in
// a test that makes a port be taken first.
var pickAddrs = FreeAddrs

// FreeAddrs returns want with each empty address replaced by a loopback
// address with a port nobody listens on now, all of them distinct: the
// ports are held until all are chosen. Another process could take one
// before the program binds it; startProgram then starts it again. Tests
// that run programs on addresses of their own choose them here too.
func FreeAddrs(want []string) ([]string, error) {
	out := slices.Clone(want)
	for i, a := range want {
		if a != "" {
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer ln.Close()
		out[i] = ln.Addr().String()
	}
	return out, nil
}
