package idempotency

import (
	"errors"
	"fmt"
	"log/slog"

	"gorm.io/gorm"
)

// Keys is the idempotency-key store of one service: it makes the middleware
// and sweeps expired keys.
type Keys struct {
	store store
	cfg   Config
	log   *slog.Logger
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
	return &Keys{store: store{db: db}, cfg: cfg.withDefaults(), log: log}, nil
}
