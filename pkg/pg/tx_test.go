package pg_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/problem"
)

// openDB opens a fresh test database with pg.Open and cfg's timeout.
func openDB(t *testing.T, statementTimeout time.Duration) *gorm.DB {
	t.Helper()
	cfg := pg.Config{URL: pgtest.NewURL(t, migrations(t)), MaxOpenConns: 10, MaxIdleConns: 10,
		ConnMaxLifetime: time.Minute, ConnMaxIdleTime: time.Minute, StatementTimeout: statementTimeout}
	db, err := pg.Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close(db) })
	return db
}

// mustExec runs sql on db and fails the test on error.
func mustExec(t *testing.T, db *gorm.DB, sql string, args ...any) {
	t.Helper()
	if err := db.Exec(sql, args...).Error; err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// count returns the rows of things with note.
func count(t *testing.T, db *gorm.DB, note string) int64 {
	t.Helper()
	var n int64
	if err := db.Raw(`SELECT count(*) FROM things WHERE note = ?`, note).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// terminate ends the server session behind tx from another connection of
// db and waits until it is gone, as a failover or an administrator would.
func terminate(t *testing.T, db, tx *gorm.DB) {
	t.Helper()
	var pid int
	if err := tx.Raw(`SELECT pg_backend_pid()`).Scan(&pid).Error; err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `SELECT pg_terminate_backend(?, 5000)`, pid)
}

// statusOf is the HTTP status MapError gives err.
func statusOf(err error) int { return problem.Status(problem.CodeOf(pg.MapError(err, nil))) }

func TestTxRunsTheWholeTransactionAgainWhenItLeftNothingBehind(t *testing.T) {
	t.Parallel()
	t.Run("a session terminated before COMMIT", func(t *testing.T) {
		t.Parallel()
		db := openDB(t, 0)
		var runs atomic.Int32
		err := pg.Tx(context.Background(), db, func(tx *gorm.DB) error {
			if err := tx.Exec(`INSERT INTO things (qty, note) VALUES (1, 'terminated')`).Error; err != nil {
				return err
			}
			if runs.Add(1) == 1 {
				terminate(t, db, tx)
			}
			return tx.Exec(`INSERT INTO things (qty, note) VALUES (2, 'terminated')`).Error
		})
		if err != nil || runs.Load() != 2 {
			t.Fatalf("err %v after %d runs; want success on the second run", err, runs.Load())
		}
		if n := count(t, db, "terminated"); n != 2 {
			t.Fatalf("%d rows stored, want the 2 of the second run only", n)
		}
	})
	t.Run("a serialization failure", func(t *testing.T) {
		t.Parallel()
		db := openDB(t, 0)
		mustExec(t, db, `INSERT INTO things (id, qty) VALUES (1, 0)`)
		// Both transactions read the counter before either writes it, so
		// under SERIALIZABLE one of them must fail and run again.
		var read sync.WaitGroup
		read.Add(2)
		var runs atomic.Int32
		increment := func() error {
			first := true
			return pg.Tx(context.Background(), db, func(tx *gorm.DB) error {
				runs.Add(1)
				var qty int
				if err := tx.Raw(`SELECT qty FROM things WHERE id = 1`).Scan(&qty).Error; err != nil {
					return err
				}
				if first {
					first = false
					read.Done()
					read.Wait()
				}
				return tx.Exec(`UPDATE things SET qty = ? WHERE id = 1`, qty+1).Error
			}, serializable)
		}
		errs := runBoth(increment, increment)
		var qty int
		if err := db.Raw(`SELECT qty FROM things WHERE id = 1`).Scan(&qty).Error; err != nil {
			t.Fatal(err)
		}
		if errs[0] != nil || errs[1] != nil || qty != 2 || runs.Load() < 3 {
			t.Fatalf("errors %v, counter %d after %d runs; want both increments, one of them run again", errs, qty, runs.Load())
		}
	})
	t.Run("a deadlock", func(t *testing.T) {
		t.Parallel()
		db := openDB(t, 0)
		mustExec(t, db, `INSERT INTO things (id, qty) VALUES (1, 0), (2, 0)`)
		var locked sync.WaitGroup
		locked.Add(2)
		var runs atomic.Int32
		lockBoth := func(a, b int) func() error {
			first := true
			return func() error {
				return pg.Tx(context.Background(), db, func(tx *gorm.DB) error {
					runs.Add(1)
					if err := tx.Exec(`UPDATE things SET qty = qty + 1 WHERE id = ?`, a).Error; err != nil {
						return err
					}
					if first {
						first = false
						locked.Done()
						locked.Wait()
					}
					return tx.Exec(`UPDATE things SET qty = qty + 1 WHERE id = ?`, b).Error
				})
			}
		}
		errs := runBoth(lockBoth(1, 2), lockBoth(2, 1))
		var total int
		if err := db.Raw(`SELECT sum(qty) FROM things`).Scan(&total).Error; err != nil {
			t.Fatal(err)
		}
		if errs[0] != nil || errs[1] != nil || total != 4 || runs.Load() != 3 {
			t.Fatalf("errors %v, total %d after %d runs; want both transactions, the victim run again", errs, total, runs.Load())
		}
	})
}

func TestTxGivesUpAfterMaxAttemptsWithA503(t *testing.T) {
	t.Parallel()
	db := openDB(t, 0)
	var runs atomic.Int32
	err := pg.Tx(context.Background(), db, func(tx *gorm.DB) error {
		runs.Add(1)
		return tx.Exec(`DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$`).Error
	})
	if runs.Load() != pg.MaxAttempts || statusOf(err) != http.StatusServiceUnavailable {
		t.Fatalf("%d runs, status %d (%v); want %d runs and a 503", runs.Load(), statusOf(err), err, pg.MaxAttempts)
	}
	var pe *problem.Error
	if !errors.As(pg.MapError(err, nil), &pe) || pe.Header.Get("Retry-After") == "" {
		t.Fatalf("a 503 without Retry-After: %+v", pe)
	}
}

func TestTxDoesNotRunAgainWhatMayHaveBeenCommitted(t *testing.T) {
	t.Parallel()
	db := openDB(t, 0)
	// A deferred trigger ends the session while COMMIT runs: the client
	// sent COMMIT and never hears back.
	mustExec(t, db, `CREATE FUNCTION die() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); RETURN NULL; END $$`)
	mustExec(t, db, `CREATE CONSTRAINT TRIGGER die_at_commit AFTER INSERT ON owners DEFERRABLE INITIALLY DEFERRED
		FOR EACH ROW EXECUTE FUNCTION die()`)
	var runs atomic.Int32
	err := pg.Tx(context.Background(), db, func(tx *gorm.DB) error {
		runs.Add(1)
		return tx.Exec(`INSERT INTO owners (nome) VALUES ('lost at commit')`).Error
	})
	if runs.Load() != 1 || !errors.Is(err, pg.ErrCommitUnknown) || statusOf(err) != http.StatusServiceUnavailable {
		t.Fatalf("%d runs, status %d, err %v; want one run and a 503 for an unknown outcome", runs.Load(), statusOf(err), err)
	}
}

func TestTxDoesNotRetryWhatWouldFailAgain(t *testing.T) {
	t.Parallel()
	db := openDB(t, 100*time.Millisecond)
	tests := []struct {
		name   string
		ctx    func() context.Context
		sql    string
		status int
	}{
		{"a statement over DATABASE_STATEMENT_TIMEOUT is a 503", context.Background, `SELECT pg_sleep(2)`, http.StatusServiceUnavailable},
		{"a request whose client went away is a 499", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			return ctx
		}, `SELECT pg_sleep(0.09)`, problem.StatusClientClosedRequest},
		{"a rule of the schema is a 4xx", context.Background, `INSERT INTO things (qty) VALUES (-1)`, http.StatusUnprocessableEntity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs atomic.Int32
			err := pg.Tx(tt.ctx(), db, func(tx *gorm.DB) error {
				runs.Add(1)
				return tx.Exec(tt.sql).Error
			})
			if runs.Load() != 1 || statusOf(err) != tt.status {
				t.Fatalf("%d runs, status %d (%v); want one run and %d", runs.Load(), statusOf(err), err, tt.status)
			}
		})
	}
}

func TestAtomicMakesNestedTransactionsOneUnit(t *testing.T) {
	t.Parallel()
	db := openDB(t, 0)
	store := func(ctx context.Context, note string) error {
		return pg.Tx(ctx, db, func(tx *gorm.DB) error {
			return tx.Exec(`INSERT INTO things (qty, note) VALUES (1, ?)`, note).Error
		})
	}
	t.Run("a failed unit keeps none of its nested commits", func(t *testing.T) {
		err := pg.Atomic(context.Background(), db, func(ctx context.Context, _ *gorm.DB) error {
			if err := store(ctx, "unit-rolled-back"); err != nil {
				return err
			}
			if err := pg.Conn(ctx, db).Exec(`INSERT INTO things (qty, note) VALUES (1, 'unit-rolled-back')`).Error; err != nil {
				return err
			}
			return errors.New("the answer could not be stored")
		})
		if err == nil || count(t, db, "unit-rolled-back") != 0 {
			t.Fatalf("err %v, %d rows kept; want an error and nothing stored", err, count(t, db, "unit-rolled-back"))
		}
	})
	t.Run("a failed nested transaction rolls back alone", func(t *testing.T) {
		err := pg.Atomic(context.Background(), db, func(ctx context.Context, tx *gorm.DB) error {
			bad := pg.Tx(ctx, db, func(tx *gorm.DB) error { return tx.Exec(`INSERT INTO things (qty) VALUES (-1)`).Error })
			if statusOf(bad) != http.StatusUnprocessableEntity {
				t.Errorf("nested violation: status %d (%v)", statusOf(bad), bad)
			}
			return tx.Exec(`INSERT INTO things (qty, note) VALUES (1, 'after-a-nested-failure')`).Error
		})
		if err != nil || count(t, db, "after-a-nested-failure") != 1 {
			t.Fatalf("err %v; want the unit committed after its nested failure", err)
		}
	})
	t.Run("a unit whose session was terminated runs again from the start", func(t *testing.T) {
		var runs atomic.Int32
		err := pg.Atomic(context.Background(), db, func(ctx context.Context, tx *gorm.DB) error {
			if err := store(ctx, "unit-retried"); err != nil {
				return err
			}
			if runs.Add(1) == 1 {
				terminate(t, db, tx)
			}
			return store(ctx, "unit-retried")
		})
		if err != nil || runs.Load() != 2 || count(t, db, "unit-retried") != 2 {
			t.Fatalf("err %v after %d runs, %d rows; want 2 runs and the second run's 2 rows", err, runs.Load(), count(t, db, "unit-retried"))
		}
	})
}

// serializable is the isolation that makes Postgres detect write skew.
var serializable = &sql.TxOptions{Isolation: sql.LevelSerializable}

// runBoth runs a and b at the same time and returns their errors.
func runBoth(a, b func() error) [2]error {
	var errs [2]error
	var wg sync.WaitGroup
	for i, f := range []func() error{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = f() }()
	}
	wg.Wait()
	return errs
}

func TestMapErrorAnswersFaultsWith503AndRetryAfterOr499(t *testing.T) {
	t.Parallel()
	pgErr := func(code string) error { return fmt.Errorf("insert: %w", &pgconn.PgError{Code: code}) }
	tests := []struct {
		name   string
		err    error
		status int
	}{
		{"a terminated session", pgErr(pg.AdminShutdown), http.StatusServiceUnavailable},
		{"a server that is starting or stopping", pgErr(pg.CannotConnectNow), http.StatusServiceUnavailable},
		{"a statement timeout", pgErr(pg.QueryCanceled), http.StatusServiceUnavailable},
		{"a serialization failure left after the retries", pgErr(pg.SerializationFailure), http.StatusServiceUnavailable},
		{"a deadlock left after the retries", pgErr(pg.DeadlockDetected), http.StatusServiceUnavailable},
		{"a connection failure", pgErr("08006"), http.StatusServiceUnavailable},
		{"a broken socket", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), http.StatusServiceUnavailable},
		{"a commit whose outcome is unknown", fmt.Errorf("%w: %w", pg.ErrCommitUnknown, io.EOF), http.StatusServiceUnavailable},
		{"a cancelled request", fmt.Errorf("query: %w", context.Canceled), problem.StatusClientClosedRequest},
		{"an undefined table", pgErr("42P01"), http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := pg.MapError(tt.err, nil)
			var pe *problem.Error
			if !errors.As(err, &pe) || problem.Status(pe.Code) != tt.status {
				t.Fatalf("MapError(%v) = %v, want status %d", tt.err, err, tt.status)
			}
			if retry := pe.Header.Get("Retry-After"); (tt.status == http.StatusServiceUnavailable) != (retry != "") {
				t.Errorf("Retry-After %q on a %d", retry, tt.status)
			}
		})
	}
}

// What AfterCommit is given runs once Atomic's transaction has committed,
// not when it rolls back, and at once outside Atomic; there it can take a
// connection of the pool whose last one the transaction held (on a pool of
// one, a statement of its own inside the transaction waits its whole bound
// and fails).
func TestAfterCommitRunsOnceTheUnitCommittedOnAFreeConnection(t *testing.T) {
	t.Parallel()
	cfg := pg.Config{URL: pgtest.NewURL(t, migrations(t)), MaxOpenConns: 1, MaxIdleConns: 1,
		ConnMaxLifetime: time.Minute, ConnMaxIdleTime: time.Minute, StatementTimeout: 500 * time.Millisecond}
	db, err := pg.Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close(db) })
	pool, _ := db.DB()
	readOwn := func(note string) error { // a connection of its own, as pgx's API takes one
		conn, err := pg.Acquire(context.Background(), db)
		if err != nil {
			return err
		}
		defer func() { _ = conn.Close() }()
		var n int64
		if err := conn.QueryRowContext(context.Background(), `SELECT count(*) FROM things WHERE note = $1`, note).Scan(&n); err != nil {
			return err
		}
		if n != 1 {
			return fmt.Errorf("%d rows of %q, want the committed one", n, note)
		}
		return nil
	}
	var after error
	ran := false
	err = pg.Atomic(context.Background(), db, func(ctx context.Context, tx *gorm.DB) error {
		if err := tx.Exec(`INSERT INTO things (qty, note) VALUES (1, 'after-commit')`).Error; err != nil {
			return err
		}
		pg.AfterCommit(ctx, func() { ran, after = true, readOwn("after-commit") })
		if ran {
			return errors.New("AfterCommit ran inside the transaction")
		}
		return nil
	})
	if err != nil || !ran || after != nil {
		t.Fatalf("Atomic: %v; after the commit: ran %v, %v", err, ran, after)
	}
	if inUse := pool.Stats().InUse; inUse != 0 {
		t.Errorf("%d connections still in use after the unit", inUse)
	}

	ran = false
	err = pg.Atomic(context.Background(), db, func(ctx context.Context, tx *gorm.DB) error {
		pg.AfterCommit(ctx, func() { ran = true })
		return errors.New("rolled back")
	})
	if err == nil || ran {
		t.Errorf("a unit that rolled back: err %v, AfterCommit ran %v; want an error and nothing run", err, ran)
	}
	ran = false
	if pg.AfterCommit(context.Background(), func() { ran = true }); !ran {
		t.Error("outside Atomic, AfterCommit did not run at once")
	}
}
