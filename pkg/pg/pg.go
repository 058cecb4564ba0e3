// Package pg opens PostgreSQL through GORM on the pgx driver, runs the
// versioned SQL migrations embedded in each program, and maps Postgres errors
// to problem codes.
package pg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Config holds the database settings of a program, read from the environment.
type Config struct {
	URL             string        `env:"DATABASE_URL"`
	MaxOpenConns    int           `env:"DATABASE_MAX_OPEN_CONNS, default=20"`
	MaxIdleConns    int           `env:"DATABASE_MAX_IDLE_CONNS, default=10"`
	ConnMaxLifetime time.Duration `env:"DATABASE_CONN_MAX_LIFETIME, default=30m"`
	ConnMaxIdleTime time.Duration `env:"DATABASE_CONN_MAX_IDLE_TIME, default=5m"`
	SlowQuery       time.Duration `env:"DATABASE_SLOW_QUERY, default=500ms"`
	// DeadPeer bounds how long a half-open connection or a stopped client
	// can go unnoticed.
	DeadPeer DeadPeer
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	switch {
	case c.URL == "":
		return errors.New("DATABASE_URL is empty")
	case c.MaxOpenConns <= 0 || c.MaxIdleConns < 0:
		return errors.New("DATABASE_MAX_OPEN_CONNS must be positive")
	}
	return nil
}

// Open connects with the pool and dead-peer settings of cfg and pings the
// server. Associations are never saved implicitly: a nested object in a
// request must not create or change related rows.
func Open(ctx context.Context, cfg Config, log *slog.Logger) (*gorm.DB, error) {
	cc, err := connConfig(cfg.URL, cfg.DeadPeer)
	if err != nil {
		return nil, err
	}
	db, err := gorm.Open(postgres.New(postgres.Config{Conn: stdlib.OpenDB(*cc)}), &gorm.Config{
		Logger:                 slowLogger(log, cfg.SlowQuery),
		FullSaveAssociations:   false,
		SkipDefaultTransaction: true,
		PrepareStmt:            false,
		NowFunc:                func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("database handle: %w", err)
	}
	sqlDB.SetMaxOpenConns(cfg.MaxOpenConns)
	sqlDB.SetMaxIdleConns(cfg.MaxIdleConns)
	sqlDB.SetConnMaxLifetime(cfg.ConnMaxLifetime)
	sqlDB.SetConnMaxIdleTime(cfg.ConnMaxIdleTime)
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		_ = sqlDB.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	return db.Session(&gorm.Session{FullSaveAssociations: false}), nil
}

// Close closes the pool behind db.
func Close(db *gorm.DB) error {
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// Ping is a readiness probe for db.
func Ping(db *gorm.DB) func(context.Context) error {
	return func(ctx context.Context) error {
		sqlDB, err := db.DB()
		if err != nil {
			return err
		}
		return sqlDB.PingContext(ctx)
	}
}

// slowLogger logs only slow queries and unexpected errors, through slog.
func slowLogger(log *slog.Logger, slow time.Duration) logger.Interface {
	if log == nil {
		return logger.Discard
	}
	return logger.NewSlogLogger(log, logger.Config{
		SlowThreshold:             slow,
		IgnoreRecordNotFoundError: true,
		ParameterizedQueries:      true,
		LogLevel:                  logger.Warn,
	})
}
