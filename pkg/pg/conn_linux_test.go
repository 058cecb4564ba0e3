package pg_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"golang.org/x/sys/unix"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
)

func TestTheClientEndOfEveryConnectionGivesUpOnADeadServer(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: waits for the kernel to give up on a dead server; skipped under -short")
	}
	t.Parallel()
	db := openDeadPeer(t, pgtest.NewURL(t, emptyMigrations), pg.DeadPeer{TCPKeepAlive: 2 * time.Second, TCPUserTimeout: 7 * time.Second})
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sqlDB.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	want := map[string]struct{ level, opt, value int }{
		"SO_KEEPALIVE":     {unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1},
		"TCP_KEEPIDLE":     {unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, 2},
		"TCP_KEEPINTVL":    {unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 2},
		"TCP_KEEPCNT":      {unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 3},
		"TCP_USER_TIMEOUT": {unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, 7000},
	}
	err = conn.Raw(func(dc any) error {
		tcp, ok := dc.(*stdlib.Conn).Conn().PgConn().Conn().(*net.TCPConn)
		if !ok {
			t.Fatalf("the connection is %T, not TCP", dc.(*stdlib.Conn).Conn().PgConn().Conn())
		}
		raw, err := tcp.SyscallConn()
		if err != nil {
			return err
		}
		return raw.Control(func(fd uintptr) {
			for name, w := range want {
				got, err := unix.GetsockoptInt(int(fd), w.level, w.opt)
				if err != nil || got != w.value {
					t.Errorf("%s = %d (%v), want %d", name, got, err, w.value)
				}
			}
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}
