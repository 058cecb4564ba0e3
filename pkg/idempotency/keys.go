package idempotency

import (
	"errors"
	"fmt"
	"log/slog"

	"gorm.io/gorm"
)

// Keys is the idempotency-key store of one service: it wraps the handlers
// of the requests that are safe to retry and sweeps expired keys.
type Keys struct {
	db  *gorm.DB
	cfg Config
	log *slog.Logger
}

// New returns the Keys of db, whose schema holds MigrationSet; zero fields
// of cfg take the defaults and a nil log discards.
func New(db *gorm.DB, cfg Config, log *slog.Logger) (*Keys, error) {
	if db == nil {
		return nil, errors.New("idempotency: no database")
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("idempotency: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Keys{db: db, cfg: cfg.withDefaults(), log: log}, nil
}
