package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"gorm.io/gorm"
)

// lockWait bounds how long a re-indexing statement waits for a row lock
// (the settings row that writers hold FOR SHARE, a run's row). A lock held
// by a stopped client is given up on and the step retried, instead of
// queueing every later writer behind the wait. REINDEX_LEASE_TTL must be
// longer.
const lockWait = time.Second

// adminIdle ends the session of a re-indexing start or rollback whose client
// stops between the statements of its transaction, releasing the settings
// row every writer needs.
const adminIdle = time.Second

// millis formats d as a Postgres setting in milliseconds.
func millis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// boundAdminTx makes the transaction tx give up on row locks after lockWait
// and end if its client goes silent for adminIdle.
func boundAdminTx(tx *gorm.DB) error {
	return tx.Exec(`SELECT set_config('lock_timeout', ?, true), set_config('idle_in_transaction_session_timeout', ?, true)`,
		millis(lockWait), millis(adminIdle)).Error
}

// withLockWait runs fn on a connection of its own whose statements give up
// waiting for a row lock after lockWait. fn runs single statements, outside
// any transaction, so a client stopped between them holds no lock. The
// setting is reset before the connection goes back to the pool; one that
// cannot be reset is discarded.
func withLockWait(ctx context.Context, db *gorm.DB, fn func(*pgx.Conn) error) error {
	return withConn(ctx, db, func(conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, `SELECT set_config('lock_timeout', $1, false)`, millis(lockWait)); err != nil {
			return err
		}
		err := fn(conn)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, rerr := conn.Exec(rctx, `RESET lock_timeout`); rerr != nil {
			return errors.Join(err, rerr, driver.ErrBadConn)
		}
		return err
	})
}
