package pg

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Postgres SQLSTATE codes that MapError translates.
const (
	UniqueViolation      = "23505"
	ForeignKeyViolation  = "23503"
	NotNullViolation     = "23502"
	CheckViolation       = "23514"
	StringTooLong        = "22001"
	NumericOutOfRange    = "22003"
	SerializationFailure = "40001"
	DeadlockDetected     = "40P01"
	QueryCanceled        = "57014" // statement_timeout, or a cancel request
	AdminShutdown        = "57P01" // pg_terminate_backend, or a fast shutdown
	CrashShutdown        = "57P02"
	CannotConnectNow     = "57P03" // the server is starting or shutting down
	LockNotAvailable     = "55P03" // lock_timeout
	InFailedTransaction  = "25P02" // a statement after a failed one, in one transaction
	TooManyConnections   = "53300"
	ReadOnlyTransaction  = "25006" // a write on a standby, or under default_transaction_read_only
)

// retryAfter is the Retry-After of every 503 MapError gives, in seconds.
const retryAfter = "1"

// Fields names the request member behind a constraint, by constraint name, so
// errors point at the field the client sent.
type Fields map[string]string

// MapError translates a database error into a problem error: unique
// violation → 409, foreign key → 422 on the referencing field, not-null and
// check → 422, record not found → 404. A database that cannot answer now (a
// lost or refused connection, a server shutting down, a statement timeout,
// a serialization failure or deadlock that Tx could not retry away, a commit
// whose outcome is unknown) → 503 with Retry-After. A request whose context
// was cancelled (its client went away) → 499. Other errors become 500 with
// the cause kept for the log.
//
// MapError reads a foreign-key violation as a write pointing at a missing
// row. On a DELETE the same SQLSTATE means the row is still referenced, which
// is a 409: check IsCode(err, ForeignKeyViolation) before calling MapError.
func MapError(err error, fields Fields) error {
	if err == nil {
		return nil
	}
	var pe *problem.Error
	if errors.As(err, &pe) {
		return err
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return problem.Wrap(problem.ENOTFOUND, err, "the resource does not exist")
	}
	if errors.Is(err, context.Canceled) {
		return problem.Wrap(problem.ECLIENTGONE, err, "the request was cancelled")
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if e := constraintError(err, pgErr, fields[pgErr.ConstraintName]); e != nil {
			return e
		}
	}
	if Unavailable(err) {
		return problem.Wrap(problem.EUNAVAILABLE, err, "the database is unavailable, try again later").
			WithHeader("Retry-After", retryAfter)
	}
	return problem.Wrap(problem.EINTERNAL, err, "")
}

// constraintError maps the violation of a rule of the schema to a 409 or a
// 422 naming field; it returns nil for any other SQLSTATE.
func constraintError(err error, pgErr *pgconn.PgError, field string) error {
	switch pgErr.Code {
	case UniqueViolation:
		e := problem.Wrap(problem.ECONFLICT, err, "a resource with the same unique value already exists")
		if field != "" {
			e.Detail = "a resource with the same " + field + " already exists"
			e.Fields = []problem.FieldError{{Field: field, Code: "duplicate", Message: "is already taken"}}
		}
		return e
	case ForeignKeyViolation:
		if field == "" {
			field = pgErr.ConstraintName
		}
		return &problem.Error{Code: problem.EINVALID, Detail: "the request has invalid fields", Err: err,
			Fields: []problem.FieldError{{Field: field, Code: "not_found", Message: "refers to a resource that does not exist"}}}
	case NotNullViolation:
		if field == "" {
			field = pgErr.ColumnName
		}
		return &problem.Error{Code: problem.EINVALID, Detail: "the request has invalid fields", Err: err,
			Fields: []problem.FieldError{{Field: field, Code: "required", Message: "is required"}}}
	case CheckViolation, StringTooLong, NumericOutOfRange:
		if field == "" {
			field = pgErr.ColumnName
		}
		return &problem.Error{Code: problem.EINVALID, Detail: "the request has invalid fields", Err: err,
			Fields: []problem.FieldError{{Field: field, Code: "out_of_range", Message: "violates a rule of this resource"}}}
	}
	return nil
}

// clientFault reports whether err is a constraint a client's values broke,
// which MapError answers as a 409 or 422 (constraintError).
func clientFault(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && constraintError(err, pgErr, "") != nil
}

// Unavailable reports an error after which the same request may succeed
// later: the database was unreachable or went away, refused work for now
// (shutting down, starting, too many connections, statement or lock
// timeout), or rolled the transaction back for a conflict with another one
// (serialization failure, deadlock), or takes no writes now (a standby,
// such as a primary demoted by a failover, or a database set read-only).
func Unavailable(err error) bool {
	if errors.Is(err, ErrCommitUnknown) || errors.Is(err, context.DeadlineExceeded) || Retryable(err) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case QueryCanceled, LockNotAvailable, TooManyConnections, ReadOnlyTransaction:
			return true
		}
	}
	return false
}

// Retryable reports an error that left nothing behind when it happened
// before COMMIT was sent, so the whole transaction can run again: a
// serialization failure, a deadlock, or a lost connection. A request whose
// context ended is not retryable.
func Retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return IsCode(err, SerializationFailure) || IsCode(err, DeadlockDetected) || ConnectionLost(err)
}

// ConnectionLost reports an error that means the connection to the server
// broke or could not be made: a server that terminated the session (an
// administrator, a shutdown or a crash), a server refusing connections
// while it starts or stops, a connection exception (SQLSTATE class 08), or
// a network error.
func ConnectionLost(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == AdminShutdown, pgErr.Code == CrashShutdown, pgErr.Code == CannotConnectNow,
			strings.HasPrefix(pgErr.Code, "08"):
			return true
		}
		return false
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connErr) || errors.As(err, &netErr) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}

// IsCode reports whether err is a Postgres error with SQLSTATE code.
func IsCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}
