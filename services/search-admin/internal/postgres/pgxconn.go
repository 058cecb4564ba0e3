package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/pg"
)

// withConn runs fn on a pgx connection taken from db's pool, for what
// database/sql does poorly: binary float4[] reads, pipelined batches and
// LISTEN. The connection goes back to the pool afterwards (or is discarded
// when fn left it broken).
func withConn(ctx context.Context, db *gorm.DB, fn func(*pgx.Conn) error) error {
	conn, err := pg.Acquire(ctx, db)
	if err != nil {
		return fmt.Errorf("database connection: %w", err)
	}
	defer func() { _ = conn.Close() }()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("database driver %T is not pgx", dc)
		}
		return fn(c.Conn())
	})
}

// readSnapshot runs fn in a read-only repeatable-read transaction on a pgx
// connection, so every query of fn sees the same snapshot.
func readSnapshot(ctx context.Context, db *gorm.DB, fn func(pgx.Tx) error) error {
	return withConn(ctx, db, func(conn *pgx.Conn) error {
		return pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
	})
}
