package pg

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"gorm.io/gorm"
)

// MaxAttempts bounds how many times Tx and Atomic run one transaction.
const MaxAttempts = 4

// retryBase is the first backoff between attempts; it doubles each time and
// a random part of it is waited (full jitter), so colliding transactions
// spread out.
const retryBase = 20 * time.Millisecond

// ErrCommitUnknown marks a transaction whose COMMIT was sent but whose answer
// never came back: the connection broke, so it may or may not have been
// committed. It is never retried blindly; MapError makes it a 503.
var ErrCommitUnknown = errors.New("the connection was lost during COMMIT; the transaction may or may not be committed")

// Snapshot is the option of a read made of several statements that must
// agree (Tx(ctx, db, fn, Snapshot)): a read-only transaction whose
// statements all see the database as it was at its first one, so that a
// list's count and the page it counts, or a row and the rows embedded in
// it, never mix a write committed between them. Read-only at repeatable
// read, it takes no locks and never fails to serialize.
var Snapshot = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}

// Tx runs fn in one transaction of db bound to ctx and commits it. When
// Postgres rolls the whole transaction back in a way that leaves nothing
// behind — a serialization failure, a deadlock, or a connection lost before
// COMMIT was sent — Tx runs fn again in a new transaction, up to MaxAttempts
// times in all, so fn must be safe to run more than once (it may not keep
// what an earlier run computed). A connection lost during COMMIT is not
// retried: the error wraps ErrCommitUnknown.
//
// Under a context that Atomic passes to its function, fn runs instead in a
// savepoint of Atomic's transaction (opts cannot change it, and an error of
// fn rolls back fn's statements only); retrying is then Atomic's business.
//
// Errors are returned as they are, for MapError.
func Tx(ctx context.Context, db *gorm.DB, fn func(tx *gorm.DB) error, opts ...*sql.TxOptions) error {
	if u := unitOf(ctx, db); u != nil {
		return u.tx.WithContext(ctx).Transaction(fn)
	}
	return retry(ctx, func() error { return once(ctx, db, fn, opts...) })
}

// Conn returns db bound to ctx, for statements outside Tx: under a context
// that Atomic passes to its function, it is Atomic's transaction instead, so
// that every statement of the unit reads and writes the same snapshot.
func Conn(ctx context.Context, db *gorm.DB) *gorm.DB {
	if u := unitOf(ctx, db); u != nil {
		return u.tx.WithContext(ctx)
	}
	return db.WithContext(ctx)
}

// Atomic runs fn in one transaction of db and commits it if fn returns nil;
// every Tx and Conn of db under the context fn receives joins that
// transaction, so code that opens its own transactions can be made part of a
// larger one (the idempotency keys store an answer with the write it
// describes this way). It retries like Tx, running fn again from the start.
func Atomic(ctx context.Context, db *gorm.DB, fn func(ctx context.Context, tx *gorm.DB) error) error {
	if unitOf(ctx, db) != nil {
		return errors.New("pg: Atomic inside Atomic on the same database")
	}
	return retry(ctx, func() error {
		u := &unit{pool: poolOf(db)}
		err := once(ctx, db, func(tx *gorm.DB) error {
			u.tx = tx
			return fn(context.WithValue(ctx, unitKey{}, u), tx)
		})
		if err == nil {
			for _, f := range u.afterCommit {
				f()
			}
		}
		return err
	})
}

// AfterCommit runs f once the transaction of Atomic that ctx carries has
// committed (not at all if it rolls back; once more for each retry that
// commits), or at once outside Atomic. Work that needs its own connection
// and the committed state belongs there, not inside the transaction: a
// request holding Atomic's connection that waits for a second one of the
// same pool deadlocks with as many others doing the same, once they hold
// every connection (a review saw search-admin's writes hang 30 s after
// Postgres came back, each holding its transaction and waiting to refresh
// the search index).
func AfterCommit(ctx context.Context, f func()) {
	if u, ok := ctx.Value(unitKey{}).(*unit); ok {
		u.afterCommit = append(u.afterCommit, f)
		return
	}
	f()
}

// retry runs attempt until it succeeds, fails in a way that is not safe to
// repeat, or has run MaxAttempts times, waiting a jittered backoff between
// runs. It gives up early when ctx ends.
func retry(ctx context.Context, attempt func() error) error {
	wait := retryBase
	for n := 1; ; n++ {
		err := attempt()
		if err == nil || n == MaxAttempts || errors.Is(err, ErrCommitUnknown) || !Retryable(err) {
			return err
		}
		t := time.NewTimer(rand.N(wait) + time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		wait *= 2
	}
}

// once runs fn in a new transaction of db: it rolls back when fn fails or
// panics and commits otherwise. A commit that fails with a lost connection
// wraps ErrCommitUnknown; one Postgres refused (a serialization failure found
// at commit) rolled back and is returned as it is.
func once(ctx context.Context, db *gorm.DB, fn func(tx *gorm.DB) error, opts ...*sql.TxOptions) (err error) {
	tx := db.WithContext(ctx).Begin(opts...)
	if tx.Error != nil {
		return tx.Error
	}
	committing := false
	defer func() {
		if !committing {
			// fn failed or panicked: nothing is committed, and a failed
			// rollback only means the connection is gone already.
			_ = tx.Rollback().Error
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	committing = true
	if err := tx.Commit().Error; err != nil {
		if ConnectionLost(err) && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("%w: %w", ErrCommitUnknown, err)
		}
		return err
	}
	return nil
}

// unit is the transaction Atomic opened, as carried by its context.
type unit struct {
	pool        *sql.DB // the pool it was opened on, so another database never joins it
	tx          *gorm.DB
	afterCommit []func() // AfterCommit's functions, run once the transaction committed
}

type unitKey struct{}

// unitOf returns the transaction of Atomic that ctx carries for db's pool.
func unitOf(ctx context.Context, db *gorm.DB) *unit {
	u, ok := ctx.Value(unitKey{}).(*unit)
	if !ok || u.pool != poolOf(db) {
		return nil
	}
	return u
}

// poolOf returns the connection pool behind db, or nil when it has none.
func poolOf(db *gorm.DB) *sql.DB {
	p, err := db.DB()
	if err != nil {
		return nil
	}
	return p
}
