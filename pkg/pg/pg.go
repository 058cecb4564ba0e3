// Package pg opens PostgreSQL through GORM on the pgx driver, runs the
// versioned SQL migrations embedded in each program, runs transactions that
// are retried when Postgres aborted them without keeping anything (Tx,
// Atomic), and maps Postgres errors to problem codes (MapError).
package pg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/multitracer"
	"github.com/jackc/pgx/v5/stdlib"
	"go.opentelemetry.io/otel/trace"
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
	// StatementTimeout is the statement_timeout of every session: a
	// statement running longer is cancelled by Postgres (SQLSTATE 57014,
	// which MapError makes a 503). The client gives up a second later on
	// a statement, or a new connection, that a server which stopped
	// answering leaves waiting (statementBound). Zero leaves the server's
	// setting and no bound, and a statement_timeout parameter in
	// DATABASE_URL wins (and sets no bound).
	StatementTimeout time.Duration `env:"DATABASE_STATEMENT_TIMEOUT, default=5s"`
	// ConnectWait is how long Open keeps trying a server that is not there
	// yet (refusing connections, starting up, out of connections) before it
	// gives up: a service started beside its database, as on a cluster's
	// cold start, waits for it instead of exiting into a crash loop whose
	// back-off outlasts the database's start. Zero tries once. It stays
	// below the 60 s the Kubernetes startup probes allow.
	ConnectWait time.Duration `env:"DATABASE_CONNECT_WAIT, default=45s"`
	// MigrateLockTimeout is the lock_timeout of MigrateCommand's sessions:
	// how long a migration waits for a lock (behind a long transaction of
	// the serving replicas, or in a deadlock with their work) before it
	// gives the attempt up. Postgres queues every later query on that table
	// behind a waiting ALTER, so an unbounded wait stalls the serving
	// replicas for as long as the transaction it waits for. A migration that
	// gave up is tried again from its start (MigrateSets). It stays below
	// StatementTimeout's default: a serving replica's query queued behind
	// the migration's wait is delayed, not timed out into a 503. Zero waits
	// without bound; a lock_timeout parameter in DATABASE_URL wins.
	MigrateLockTimeout time.Duration `env:"DATABASE_MIGRATE_LOCK_TIMEOUT, default=1s"`
	// lockTimeout is the lock_timeout Open sets: MigrateLockTimeout, in
	// MigrateCommand only.
	lockTimeout time.Duration
	// DeadPeer bounds how long a half-open connection or a stopped client
	// can go unnoticed.
	DeadPeer DeadPeer
	// Tracer, when set, gives every statement run inside a span (a
	// request's, a worker's run) a client span of its own (Tracer); it is
	// not read from the environment.
	Tracer trace.TracerProvider
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	switch {
	case c.URL == "":
		return errors.New("DATABASE_URL is empty")
	case c.MaxOpenConns <= 0 || c.MaxIdleConns < 0:
		return errors.New("DATABASE_MAX_OPEN_CONNS must be positive")
	case c.StatementTimeout < 0:
		return errors.New("DATABASE_STATEMENT_TIMEOUT must not be negative")
	case c.ConnectWait < 0:
		return errors.New("DATABASE_CONNECT_WAIT must not be negative")
	case c.MigrateLockTimeout < 0:
		return errors.New("DATABASE_MIGRATE_LOCK_TIMEOUT must not be negative")
	}
	return nil
}

// Open connects with the pool and dead-peer settings of cfg and pings the
// server, waiting up to cfg.ConnectWait for one that is not up yet
// (waitForServer). Associations are never saved implicitly: a nested object in a
// request must not create or change related rows.
func Open(ctx context.Context, cfg Config, log *slog.Logger) (*gorm.DB, error) {
	cc, err := connConfig(cfg.URL, cfg.DeadPeer)
	if err != nil {
		return nil, err
	}
	var tracers []pgx.QueryTracer
	var opts []stdlib.OptionOpenDB
	var bound time.Duration
	if _, set := cc.RuntimeParams["statement_timeout"]; !set && cfg.StatementTimeout > 0 {
		cc.RuntimeParams["statement_timeout"] = strconv.FormatInt(max(cfg.StatementTimeout.Milliseconds(), 1), 10)
		bound = cfg.StatementTimeout + answerGrace
		tracers = append(tracers, statementBound(bound))
		opts = append(opts, stdlib.OptionShouldPing(boundedPing))
		if cc.ConnectTimeout == 0 { // connect_timeout in DATABASE_URL wins
			cc.ConnectTimeout = bound
		}
	}
	if _, set := cc.RuntimeParams["lock_timeout"]; !set && cfg.lockTimeout > 0 {
		cc.RuntimeParams["lock_timeout"] = strconv.FormatInt(max(cfg.lockTimeout.Milliseconds(), 1), 10)
	}
	if cfg.Tracer != nil {
		tracers = append(tracers, Tracer(cfg.Tracer))
	}
	switch len(tracers) {
	case 1:
		cc.Tracer = tracers[0]
	case 2:
		cc.Tracer = multitracer.New(tracers...)
	}
	pool := stdlib.OpenDB(*cc, opts...)
	pool.SetMaxOpenConns(cfg.MaxOpenConns)
	pool.SetMaxIdleConns(cfg.MaxIdleConns)
	pool.SetConnMaxLifetime(cfg.ConnMaxLifetime)
	pool.SetConnMaxIdleTime(cfg.ConnMaxIdleTime)
	ping := func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return pool.PingContext(ctx)
	}
	// Before gorm.Open, which asks the server its version.
	if err := waitForServer(ctx, ping, cfg.ConnectWait, log); err != nil {
		_ = pool.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	var conns gorm.ConnPool = pool
	if bound > 0 {
		conns = boundedPool{DB: pool, bound: bound}
	}
	db, err := gorm.Open(postgres.New(postgres.Config{Conn: conns}), &gorm.Config{
		Logger:                 slowLogger(log, cfg.SlowQuery),
		FullSaveAssociations:   false,
		SkipDefaultTransaction: true,
		PrepareStmt:            false,
		NowFunc:                func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		_ = pool.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	return db.Session(&gorm.Session{FullSaveAssociations: false}), nil
}

// waitForServer runs ping until it succeeds, for up to wait while the
// failure is one that passes (Unavailable: refused, reset, starting up, too
// many connections, no answer in time), logging each failed try. A server
// that answers with anything else (a wrong password, no such database) is
// a configuration to fix, returned at once, and so is the end of ctx (the
// program was told to stop).
func waitForServer(ctx context.Context, ping func(context.Context) error, wait time.Duration, log *slog.Logger) error {
	deadline := time.Now().Add(wait)
	pause := 250 * time.Millisecond
	for try := 1; ; try++ {
		err := ping(ctx)
		left := time.Until(deadline)
		if err == nil || ctx.Err() != nil || left <= 0 || !Unavailable(err) {
			return err
		}
		if log != nil {
			log.WarnContext(ctx, "database not reachable yet; waiting", "try", try, "retry_in", min(pause, left).String(), "err", err)
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(min(pause, left)):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// answerGrace is how much longer than statement_timeout the client waits
// for a statement's answer (and for a new connection to be ready): Postgres's
// own cancel, and its 57014, come first from a server that is there.
const answerGrace = time.Second

// statementBound is a pgx tracer that gives every statement (and BEGIN and
// COMMIT, which pgx runs as statements) a deadline on the client side.
// statement_timeout is Postgres's: a server that stops answering (frozen,
// or behind a network path that acknowledges and delivers nothing) never
// sends its cancel, and a request waited until its client hung up (75 s in
// a review, with a 5 s statement timeout). At the deadline pgx closes the
// connection and the statement fails with context.DeadlineExceeded, which
// MapError makes a 503.
type statementBound time.Duration

type statementCancelKey struct{}

func (b statementBound) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(b))
	return context.WithValue(ctx, statementCancelKey{}, cancel)
}

func (statementBound) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	if cancel, ok := ctx.Value(statementCancelKey{}).(context.CancelFunc); ok {
		cancel()
	}
}

// boundedPing is the pool's check of a connection it reuses after more than
// a second idle: pgx's own sends an empty statement under the request's
// context, which has no deadline, and is no statement the tracer bounds, so
// a frozen server (SIGSTOP, or a path that acknowledges and delivers
// nothing) held a request until the server came back (20 s in a review,
// for every request that found an idle connection). This ping gives the
// server answerGrace: a live one answers an empty statement at once. When
// it fails, pgx has closed the connection and the ping pgx then runs fails
// at once, so the pool drops the connection and takes another or opens one
// (bounded by the connect timeout).
func boundedPing(ctx context.Context, p stdlib.ShouldPingParams) bool {
	if p.IdleDuration <= time.Second {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, answerGrace)
	defer cancel()
	return p.Conn.PgConn().Ping(ctx) != nil
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
// A statement cancelled because its request's client went away is not an
// error of the service (the request logs its 499), and one that failed
// because the database is unavailable now is a warning (Tx may retry it;
// the request logs its 503 as an error when it could not).
func slowLogger(log *slog.Logger, slow time.Duration) logger.Interface {
	if log == nil {
		return logger.Discard
	}
	return faultLogger{Interface: logger.NewSlogLogger(log, logger.Config{
		SlowThreshold:             slow,
		IgnoreRecordNotFoundError: true,
		ParameterizedQueries:      true,
		LogLevel:                  logger.Warn,
	}), log: log}
}

// placeholdersOnly is the filter of the SQL every program of the platform
// logs: the statement with its placeholders, never the values.
func placeholdersOnly(_ context.Context, sql string, _ ...any) (string, []any) {
	return sql, nil
}

// GORM's Scan (after Raw, Table or Select) runs its statement under a
// recorder logger of its own and hands the recorded SQL to the program's:
// the recorder asks this package-wide filter, not the program's logger,
// and by default wrote the values into the SQL.
func init() { logger.RecorderParamsFilter = placeholdersOnly }

// faultLogger is a GORM logger that lowers the level of expected faults.
type faultLogger struct {
	logger.Interface
	log *slog.Logger
}

// LogMode implements logger.Interface.
func (l faultLogger) LogMode(level logger.LogLevel) logger.Interface {
	return faultLogger{Interface: l.Interface.LogMode(level), log: l.log}
}

// Error implements logger.Interface. GORM passes printf arguments, such as
// the error of a failed connect, which slog would encode as JSON values: a
// pgconn error holds its connection config, whose dial function JSON
// cannot encode, and the line said only "unsupported type". The message
// is formatted first, so an error reads as its text.
func (l faultLogger) Error(ctx context.Context, msg string, data ...any) {
	l.log.ErrorContext(ctx, "gorm: "+fmt.Sprintf(msg, data...))
}

// ParamsFilter implements gorm.ParamsFilter, which GORM looks for on the
// logger itself: the embedded logger's was never asked, and the SQL logged
// for a slow or failed statement had the request's values written into it
// (a body's text, a filter, a stored answer).
func (faultLogger) ParamsFilter(ctx context.Context, sql string, params ...any) (string, []any) {
	return placeholdersOnly(ctx, sql, params...)
}

// Trace implements logger.Interface.
func (l faultLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled):
		return
	case clientFault(err):
		// A duplicate, a missing referent or a value out of a column's
		// range: the client's request, answered by MapError with a 409 or
		// 422 and logged as such, not an error of the service.
		return
	case Unavailable(err):
		l.log.WarnContext(ctx, "database unavailable", "err", err, "elapsed", time.Since(begin))
		return
	}
	l.Interface.Trace(ctx, begin, fc, err)
}
