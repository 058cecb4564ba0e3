package pg

import (
	"context"
	"errors"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Postgres SQLSTATE codes that MapError translates.
const (
	UniqueViolation     = "23505"
	ForeignKeyViolation = "23503"
	NotNullViolation    = "23502"
	CheckViolation      = "23514"
	StringTooLong       = "22001"
	NumericOutOfRange   = "22003"
)

// Fields names the request member behind a constraint, by constraint name, so
// errors point at the field the client sent.
type Fields map[string]string

// MapError translates a database error into a problem error: unique
// violation → 409, foreign key → 422 on the referencing field, not-null and
// check → 422, record not found → 404, an unreachable server → 503. Other
// errors become 500 with the cause kept for the log.
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
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		field := fields[pgErr.ConstraintName]
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
		return problem.Wrap(problem.EINTERNAL, err, "")
	}
	var netErr net.Error
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) || errors.As(err, &netErr) || errors.Is(err, context.DeadlineExceeded) {
		return problem.Wrap(problem.EUNAVAILABLE, err, "the database is unavailable, try again later")
	}
	return problem.Wrap(problem.EINTERNAL, err, "")
}

// IsCode reports whether err is a Postgres error with SQLSTATE code.
func IsCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}
