package pg

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// boundedPool is the connection pool GORM runs statements on: the pool of
// database/sql, with every statement's wait for a connection bounded as
// the statement itself is. database/sql waits for a free connection (and
// pings an idle one, and opens a new one) under the caller's context,
// which a request's has no deadline for: with Postgres frozen for 20 s, a
// review saw requests queue behind connections that each took the connect
// timeout to fail, and answer 11 s later. A statement (waiting for its
// connection included) now ends within bound; its rows too, as the pgx
// tracer already ends a statement's rows (statementBound). A transaction
// waits for its connection within bound and then lives as long as its
// context.
type boundedPool struct {
	*sql.DB
	bound time.Duration
}

// GetDBConn lets gorm.DB.DB return the pool.
func (p boundedPool) GetDBConn() (*sql.DB, error) { return p.DB, nil }

// ExecContext implements gorm.ConnPool.
func (p boundedPool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, p.bound)
	defer cancel()
	return p.DB.ExecContext(ctx, query, args...)
}

// QueryContext implements gorm.ConnPool. The rows are read under the
// bounded context, which ends with the bound (every caller reads its rows
// at once).
func (p boundedPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx, cancel := context.WithTimeout(ctx, p.bound)
	rows, err := p.DB.QueryContext(ctx, query, args...)
	if err != nil {
		cancel()
		return nil, err
	}
	time.AfterFunc(p.bound, cancel)
	return rows, nil
}

// QueryRowContext implements gorm.ConnPool, as QueryContext.
func (p boundedPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	ctx, cancel := context.WithTimeout(ctx, p.bound)
	time.AfterFunc(p.bound, cancel)
	return p.DB.QueryRowContext(ctx, query, args...)
}

// BeginTx implements gorm.TxBeginner: the connection is taken within
// bound, and the transaction then runs under ctx. The connection goes back
// to the pool once the transaction ends (Conn.Close waits for it).
func (p boundedPool) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error) {
	conn, err := p.conn(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, opts)
	go func() { _ = conn.Close() }() // returns the connection to the pool once tx ends
	return tx, err
}

// conn takes a connection of the pool, waiting for it within the bound.
func (p boundedPool) conn(ctx context.Context) (*sql.Conn, error) {
	wait, cancel := context.WithTimeout(ctx, p.bound)
	defer cancel()
	return p.DB.Conn(wait)
}

// Acquire takes a connection of db's pool for statements run on it
// directly (pgx's own API), waiting for it within the statement bound of
// db, as GORM's statements do; the caller closes it.
func Acquire(ctx context.Context, db *gorm.DB) (*sql.Conn, error) {
	if p, ok := db.ConnPool.(boundedPool); ok {
		return p.conn(ctx)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("database handle: %w", err)
	}
	return sqlDB.Conn(ctx)
}
