package idempotency

import (
	"errors"
	"time"
)

// Defaults of Config, also used for its zero fields.
const (
	DefaultTTL           = 24 * time.Hour
	DefaultSweepInterval = 10 * time.Minute
)

// Config says how long keys live, read from the environment.
type Config struct {
	// TTL is how long a completed response is replayed for its key.
	TTL time.Duration `env:"IDEMPOTENCY_TTL, default=24h"`
	// SweepInterval is how often RunSweeper deletes expired keys.
	SweepInterval time.Duration `env:"IDEMPOTENCY_SWEEP_INTERVAL, default=10m"`
}

// Validate reports a configuration that cannot work; zero fields are
// allowed and mean the defaults.
func (c Config) Validate() error {
	switch {
	case c.TTL < 0:
		return errors.New("IDEMPOTENCY_TTL must be positive")
	case c.SweepInterval < 0:
		return errors.New("IDEMPOTENCY_SWEEP_INTERVAL must be positive")
	}
	return nil
}

// withDefaults fills the zero fields of c.
func (c Config) withDefaults() Config {
	if c.TTL == 0 {
		c.TTL = DefaultTTL
	}
	if c.SweepInterval == 0 {
		c.SweepInterval = DefaultSweepInterval
	}
	return c
}
