package pg

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// Defaults of the zero DeadPeer fields.
const (
	DefaultTCPKeepAlive             = 5 * time.Second
	DefaultTCPUserTimeout           = 15 * time.Second
	DefaultIdleInTransactionTimeout = 30 * time.Second
)

// keepAliveProbes is how many unanswered keep-alive probes drop a connection.
const keepAliveProbes = 3

// DeadPeer says how soon either end of a database connection gives up on
// the other. Without it a half-open connection (a host that vanished, a
// network that drops everything) lasts until the kernel's keep-alive gives
// up, two hours by default, and a client stopped inside a transaction keeps
// its locks for as long as it is stopped. Zero fields take the defaults;
// a parameter of the same name in DATABASE_URL wins over the server side.
type DeadPeer struct {
	// TCPKeepAlive is the idle time before the first keep-alive probe and
	// the time between probes, on both ends; three unanswered probes drop
	// the connection.
	TCPKeepAlive time.Duration `env:"DATABASE_TCP_KEEPALIVE, default=5s"`
	// TCPUserTimeout is how long sent data may stay unacknowledged before
	// either end drops the connection (TCP_USER_TIMEOUT, Linux).
	TCPUserTimeout time.Duration `env:"DATABASE_TCP_USER_TIMEOUT, default=15s"`
	// IdleInTransactionTimeout ends the session of a client that leaves a
	// transaction open and silent this long (a stopped process, a lost
	// network), rolling it back and releasing its locks.
	IdleInTransactionTimeout time.Duration `env:"DATABASE_IDLE_IN_TRANSACTION_TIMEOUT, default=30s"`
}

// withDefaults fills the zero fields of d.
func (d DeadPeer) withDefaults() DeadPeer {
	if d.TCPKeepAlive <= 0 {
		d.TCPKeepAlive = DefaultTCPKeepAlive
	}
	if d.TCPUserTimeout <= 0 {
		d.TCPUserTimeout = DefaultTCPUserTimeout
	}
	if d.IdleInTransactionTimeout <= 0 {
		d.IdleInTransactionTimeout = DefaultIdleInTransactionTimeout
	}
	return d
}

// connConfig parses url into a pgx configuration whose connections notice a
// dead peer as d says: the client dials with keep-alives and a user timeout,
// and asks the server for the same on its end, plus the idle-in-transaction
// timeout.
func connConfig(url string, d DeadPeer) (*pgx.ConnConfig, error) {
	cc, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	d = d.withDefaults()
	dialer := &net.Dialer{
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: d.TCPKeepAlive, Interval: d.TCPKeepAlive, Count: keepAliveProbes},
		Control:         userTimeout(d.TCPUserTimeout),
	}
	cc.DialFunc = dialer.DialContext
	keepAlive := strconv.FormatInt(int64(max(time.Second, d.TCPKeepAlive.Round(time.Second))/time.Second), 10)
	server := map[string]string{
		"tcp_keepalives_idle":                 keepAlive,
		"tcp_keepalives_interval":             keepAlive,
		"tcp_keepalives_count":                strconv.Itoa(keepAliveProbes),
		"tcp_user_timeout":                    strconv.FormatInt(d.TCPUserTimeout.Milliseconds(), 10),
		"idle_in_transaction_session_timeout": strconv.FormatInt(d.IdleInTransactionTimeout.Milliseconds(), 10),
	}
	for name, value := range server {
		if _, set := cc.RuntimeParams[name]; !set {
			cc.RuntimeParams[name] = value
		}
	}
	return cc, nil
}
